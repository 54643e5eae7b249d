package io.purgatory;

import static org.assertj.core.api.Assertions.fail;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Helpers for tests that run threads: start together, finish within a bound or fail with a thread dump. */
final class TestThreads {

    /** Bound on any wait of a test: a failure condition only, never a timing assertion. */
    static final long BOUND_SECONDS = 30;

    private TestThreads() {
    }

    /** A piece of work that may throw. */
    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    /**
     * Runs each work item on its own thread, released together; fails if any throws, or with a
     * thread dump if they have not all finished within {@link #BOUND_SECONDS}.
     */
    static void runConcurrently(String name, List<Work> work) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < work.size(); i++) {
            Work w = work.get(i);
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    w.run();
                } catch (Throwable e) {
                    failures.add(e);
                    threads.forEach(Thread::interrupt); // free the others from barriers at once
                }
            }, name + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        start.countDown();
        joinAll(threads);
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(failures.size() + " worker(s) of " + name + " failed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    /** Joins {@code threads}; fails with a thread dump if one is still alive after {@link #BOUND_SECONDS}. */
    static void joinAll(List<Thread> threads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                String dump = threadDump();
                threads.forEach(Thread::interrupt);
                fail("thread " + t.getName() + " did not finish within " + BOUND_SECONDS + " s (deadlock?)\n" + dump);
            }
        }
    }

    /** Awaits {@code latch}, failing with a thread dump after {@link #BOUND_SECONDS}. */
    static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            fail(what + " did not happen within " + BOUND_SECONDS + " s (" + latch.getCount() + " left)\n"
                    + threadDump());
        }
    }

    /** Awaits {@code latch} from a callback (no checked exception), failing after {@link #BOUND_SECONDS}. */
    static void awaitInCallback(CountDownLatch latch) {
        try {
            if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within " + BOUND_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Waits until {@code thread} is in {@code state} (blocked on a lock, say), failing after
     * {@link #BOUND_SECONDS}.
     */
    static void awaitState(Thread thread, Thread.State state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (thread.getState() != state) {
            if (System.nanoTime() - deadline > 0) {
                fail(thread.getName() + " never reached " + state + " (is " + thread.getState() + ")\n" + threadDump());
            }
            Thread.onSpinWait();
        }
    }

    /** Every live thread with its full stack. */
    static String threadDump() {
        StringBuilder sb = new StringBuilder("thread dump:\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            sb.append('"').append(t.getName()).append("\" ").append(t.getState())
                    .append(t.isDaemon() ? " daemon" : "").append('\n');
            for (StackTraceElement frame : e.getValue()) {
                sb.append("    at ").append(frame).append('\n');
            }
        }
        return sb.toString();
    }

    /** True iff the reaper thread of {@code purgatory} ({@code ExpirationReaper-<name>}) is alive. */
    static boolean reaperAlive(DelayedOperationPurgatory<?> purgatory) {
        Thread reaper = findThread("ExpirationReaper-" + purgatory.name());
        return reaper != null && reaper.isAlive();
    }

    /** The live thread named {@code name}, or null. */
    static Thread findThread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /**
     * True once {@code ref} is cleared, running the collector until then or for at most
     * {@link #BOUND_SECONDS} (for references a background thread must drop first).
     */
    static boolean isCollectedEventually(WeakReference<?> ref) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (ref.get() != null && System.nanoTime() - deadline < 0) {
            System.gc();
        }
        return ref.get() == null;
    }

    /** True once {@code ref} is cleared, running the collector up to 20 times. */
    static boolean isCollected(WeakReference<?> ref) {
        for (int i = 0; i < 20 && ref.get() != null; i++) {
            System.gc();
        }
        return ref.get() == null;
    }
}
