package io.purgatory.timer;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories for the library's own threads: named, daemon, never keeping the JVM alive. */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /**
     * Returns a factory of daemon threads named {@code name}, then {@code name-2}, {@code name-3}...
     * for any further threads.
     */
    public static ThreadFactory factory(String name) {
        TimerConfig.checkName(name);
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            int n = count.incrementAndGet();
            Thread thread = new Thread(runnable, n == 1 ? name : name + "-" + n);
            thread.setDaemon(true);
            return thread;
        };
    }
}
