package io.purgatory.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A loaded machine on demand ({@code compare --background-load N}): a child JVM of this jar
 * (the hidden command {@value #CHILD_COMMAND}) whose N threads, at normal priority, do integer
 * work on arrays larger than a core's L2 cache, for as long as the run lasts, so every workload and
 * every implementation shares the machine with the same competitors. {@link #close} stops it; a
 * shutdown hook stops it on any exit, and the child stops itself when its stdin closes (its parent
 * died). Not thread-safe.
 */
final class BackgroundLoad implements AutoCloseable {

    /* Implementation notes
     *
     * (BL1) The child's only link to its parent is its stdin pipe: it reads until end of file and
     *      then exits, so it outlives no parent, however the parent ends (kill -9 included).
     * (BL2) The child does not inherit the parent's JVM options (its -Xmn, heap or recording are the
     *      measured JVM's): a small heap and the serial collector, so that its own GC is no part of
     *      the load it is asked for.
     */

    static final String CHILD_COMMAND = "background-load";
    /** Ints per thread: 8 MB, four times a core's L2 cache here, so most reads miss it. */
    private static final int WORDS = 1 << 21;

    private static final BackgroundLoad NONE = new BackgroundLoad(null, 0);

    private final Process process;
    private final int threads;
    private final Thread hook;

    private BackgroundLoad(Process process, int threads) {
        this.process = process;
        this.threads = threads;
        this.hook = process == null ? null : new Thread(process::destroy, "background-load-stop");
    }

    /** Starts {@code threads} busy threads in a child JVM of this session (none for 0); logs its pid to {@code log}. */
    static BackgroundLoad start(int threads, PrintStream log) throws IOException {
        return start(threads, false, log);
    }

    /**
     * Starts {@code threads} busy threads in a child JVM (none for 0), in a session of its own if
     * {@code ownSession} (through {@code setsid}: where the kernel groups the CPU by session,
     * {@code sched_autogroup_enabled}, the load then competes as another session's build does,
     * group against group, not thread against thread); logs its pid and scheduling group to {@code log}.
     */
    static BackgroundLoad start(int threads, boolean ownSession, PrintStream log) throws IOException {
        if (threads < 0) {
            throw new IllegalArgumentException("--background-load must be >= 0: " + threads);
        }
        if (threads == 0) {
            return NONE;
        }
        List<String> command = new ArrayList<>();
        if (ownSession) {
            command.add("setsid");
        }
        command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        command.addAll(List.of("-Xms64m", "-Xmx64m", "-XX:+UseSerialGC", // (BL2)
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), CHILD_COMMAND,
                Integer.toString(threads)));
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BackgroundLoad load = new BackgroundLoad(process, threads);
        Runtime.getRuntime().addShutdownHook(load.hook);
        log.printf("background load: %d busy thread(s) in child JVM %d (scheduling group %s; this JVM's %s), load %s%n",
                threads, process.pid(), autogroup(process.pid()), autogroup(ProcessHandle.current().pid()),
                MachineInfo.loadAverage());
        return load;
    }

    /** The process's autogroup ("/autogroup-12 nice 0"), or "?" where the kernel has none. */
    private static String autogroup(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/autogroup")).trim();
        } catch (IOException | RuntimeException unavailable) {
            return "?";
        }
    }

    /** The busy threads asked for (0: none). */
    int threads() {
        return threads;
    }

    /** The child's pid (-1: none). */
    long pid() {
        return process == null ? -1 : process.pid();
    }

    /** Closes the child's stdin, as its parent's death would (BL1). */
    void closeStdin() throws IOException {
        if (process != null) {
            process.getOutputStream().close();
        }
    }

    /** True while the child runs. */
    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Stops the child and waits for it to end; idempotent. */
    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the JVM is shutting down: the hook runs anyway, and finds the child ended
        }
    }

    /** The child's main: {@code args[0]} busy threads until stdin closes (BL1). */
    static int child(String[] args) throws IOException {
        int threads = Integer.parseInt(args[0]);
        for (int i = 0; i < threads; i++) {
            int seed = 0x9E3779B9 * (i + 1);
            Thread t = new Thread(() -> churn(seed), "busy-" + i);
            t.setDaemon(true);
            t.start();
        }
        InputStream in = System.in;
        byte[] buffer = new byte[64];
        while (in.read(buffer) >= 0) {
            // nothing is sent: end of file is the signal
        }
        return 0;
    }

    /**
     * Integer work on a private 8 MB array: a random read and write per step (a xorshift index),
     * each value mixed into the next, so neither the reads nor the writes can be dropped.
     */
    private static void churn(int seed) {
        int[] words = new int[WORDS];
        int mask = WORDS - 1;
        int x = seed | 1;
        int acc = 0;
        while (true) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            int i = x & mask;
            acc = acc * 31 + words[i];
            words[(i ^ acc) & mask] = acc ^ x;
        }
    }
}
