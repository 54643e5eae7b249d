package io.purgatory.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Keyed waits held by virtual threads (JDK 21 and later; the {@code vthreads} command): n virtual
 * threads, each blocked in {@code join()} on the future of a keyed wait on a key of its own, then
 * answered by {@code complete(key, value)} from one platform thread, one key after another. Measures
 * the heap per blocked wait (its virtual thread and stack included: heap after full collections with
 * all n blocked, minus heap before, over n), the time to answer them all (the last virtual thread
 * has ended), and, from a JFR recording of the whole run, the {@code jdk.VirtualThreadPinned}
 * events (threshold 0: every park of a pinned virtual thread), which must be none. Ours and the map
 * of futures ({@link JdkKeyedWaits}) alternate.
 */
final class VirtualThreadsWorkload extends Workload {

    static final String TITLE = "11 virtual threads on keyed waits";
    static final String PINNED_EVENT = "jdk.VirtualThreadPinned";
    /** A system property: true keeps each run's JFR recording (its path is logged) for {@code jfr print}. */
    static final String KEEP_JFR = "bench.vthreads.keepJfr";
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final long GIVE_UP_SECONDS = 300;

    private final int waits;
    private final Metric heap;
    private final Metric answerMs;
    private final Metric startMs;
    private final Metric pinned;

    VirtualThreadsWorkload(int waits) {
        super("vthreads", TITLE, List.of(Impl.OURS, Impl.JDK));
        this.waits = waits;
        String n = String.format(Locale.ROOT, "%,d", waits);
        this.heap = new Metric(TITLE, "heap B/blocked wait, its virtual thread included", Bar.NONE, Impl.JDK);
        this.startMs = new Metric(TITLE, n + " virtual threads started and blocked (ms)", Bar.NONE, Impl.JDK);
        this.answerMs = new Metric(TITLE, "complete() each key, until all " + n + " ended (ms)", Bar.NONE, Impl.JDK);
        this.pinned = new Metric(TITLE, PINNED_EVENT + " events", Bar.zero(), Impl.JDK);
    }

    /** True if this JDK has virtual threads. */
    static boolean available() {
        return startVirtualThread() != null;
    }

    /**
     * A warm-up run of each at a tenth of the size (at most 100,000; 1,000 in quick mode), then the
     * rounds. The warm-up is never skipped: the first virtual threads to use a class load and link it
     * together, and one that waits for another's class loading is pinned meanwhile (JFR: "Contended
     * monitor enter", "Freeze or preempt failed"), a cost of the JVM's first use, not of the waits.
     * Its pinned events are logged, and noted.
     */
    @Override
    void runAll(Sizes sizes, CompareOptions options, Results results, PrintStream log) throws Exception {
        int warmUp = Math.max(1, Math.min(waits / 10, sizes.warmup() ? 100_000 : 1_000));
        for (Impl impl : impls().stream().filter(options::runs).toList()) {
            log.printf("  warm-up %s, %,d virtual threads%n", impl.id(), warmUp);
            Run run = run(impl == Impl.JDK ? KeyedWaitsUnderTest.JDK : KeyedWaitsUnderTest.OURS, warmUp, log);
            if (run.pinnedEvents() > 0) {
                results.note(String.format(Locale.ROOT, "Workload 11, %s's warm-up (%,d virtual threads, the first"
                        + " use of its classes): %d %s events, not counted: %s.", impl.id(), warmUp,
                        run.pinnedEvents(), PINNED_EVENT, run.pinnedStacks()));
            }
            Probe.settle(sizes);
        }
        runRounds(sizes, options, results, log);
    }

    /**
     * The {@code vthreads} command: {@code [--waits 1000000] [--rounds 3] [--impls ours,jdk] [--quick]}
     * (--quick: no warm-up, one round unless --rounds is given); the report goes to stdout, as compare's.
     */
    static int command(String[] args, PrintStream out, PrintStream log) throws Exception {
        if (!available()) {
            log.println("vthreads: this JDK (" + Runtime.version() + ") has no virtual threads; run it on JDK 21 or"
                    + " later, e.g. /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar benchmarks.jar vthreads");
            return 2;
        }
        int n = 1_000_000;
        Integer rounds = null;
        boolean quick = false;
        Set<Impl> impls = new TreeSet<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--waits" -> n = Integer.parseInt(value(args, ++i));
                case "--rounds" -> rounds = Integer.valueOf(value(args, ++i));
                case "--impls" -> Arrays.stream(value(args, ++i).split(",")).map(Impl::of).forEach(impls::add);
                case "--quick" -> quick = true;
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'; usage: " + USAGE);
            }
        }
        if (n < 1) {
            throw new IllegalArgumentException("--waits must be >= 1: " + n);
        }
        CompareOptions options = new CompareOptions(quick, rounds != null ? rounds : quick ? 1 : 3,
                Set.of(), impls, List.of(), List.of(), Set.of(), 0, false);
        Results results = new Results();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String loadBefore = MachineInfo.loadAverage();
        new VirtualThreadsWorkload(n).runAll(quick ? Sizes.quick() : Sizes.full(), options, results, log);
        out.print("Run " + started + ", vthreads, " + (quick ? "QUICK (not a measurement), " : "") + "medians of "
                + options.rounds() + " alternating round(s).\nMachine: " + MachineInfo.describe()
                + ".\nLoad average (1 min) at start " + loadBefore + ", at end " + MachineInfo.loadAverage()
                + ".\n\n" + results.markdownTable() + "\nThe JDK column is JdkKeyedWaits (a map of futures) under the"
                + " same virtual threads; ratios are ours over it (medians of the per-round ratios).\n");
        for (String note : results.notes()) {
            out.print("\n" + note + "\n");
        }
        out.flush();
        return 0;
    }

    static final String USAGE = "vthreads [--waits 1000000] [--rounds 3] [--impls ours,jdk] [--quick]";

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value; usage: " + USAGE);
        }
        return args[i];
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) throws Exception {
        Run run = run(impl == Impl.JDK ? KeyedWaitsUnderTest.JDK : KeyedWaitsUnderTest.OURS, waits, log);
        recorder.record(heap, run.heapBytesPerWait());
        recorder.record(startMs, run.startNanos() / 1e6);
        recorder.record(answerMs, run.answerNanos() / 1e6);
        recorder.record(pinned, (double) run.pinnedEvents());
    }

    /** What one run measured; {@code pinnedStacks} counts the pinned events by their top frames. */
    record Run(int waits, double heapBytesPerWait, long startNanos, long answerNanos, long pinnedEvents,
               Map<String, Integer> pinnedStacks) {
    }

    /** One run on the keyed waits named {@code waitsId}: n virtual threads blocked, then answered. */
    static Run run(String waitsId, int n, PrintStream log) throws Exception {
        MethodHandle start = startVirtualThread();
        if (start == null) {
            throw new IllegalStateException("this JDK (" + Runtime.version() + ") has no virtual threads: run the"
                    + " vthreads command on JDK 21 or later");
        }
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (long) i; // the caller's keys, made before the heap is measured
        }
        Thread[] threads = new Thread[n];
        LongAdder blocking = new LongAdder();
        LongAdder ended = new LongAdder();
        Path jfr = Files.createTempFile("purgatory-vthreads-", ".jfr");
        try (Recording recording = new Recording();
             KeyedWaitsUnderTest<Long, Long> waits = KeyedWaitsUnderTest.create(waitsId, "vthreads-" + waitsId)) {
            recording.enable(PINNED_EVENT).withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            long before = Probe.heapUsedAfterGc();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Long key = keys[i];
                threads[i] = startVirtual(start, () -> {
                    CompletableFuture<Long> wait = waits.await(key, TIMEOUT);
                    blocking.increment();
                    wait.join();
                    ended.increment();
                });
            }
            awaitBlocked(threads, blocking, n);
            long startNanos = System.nanoTime() - t0;
            long blocked = Probe.heapUsedAfterGc();
            long t1 = System.nanoTime();
            for (Long key : keys) {
                waits.complete(key, key);
            }
            long giveUp = t1 + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
            while (ended.sum() < n) {
                if (System.nanoTime() - giveUp > 0) {
                    throw new IllegalStateException(String.format(Locale.ROOT, "%s: %,d of %,d virtual threads ended"
                            + " %d s after their waits were completed", waitsId, ended.sum(), n, GIVE_UP_SECONDS));
                }
                Thread.onSpinWait();
            }
            long answerNanos = System.nanoTime() - t1;
            for (Thread t : threads) {
                t.join();
            }
            recording.stop();
            recording.dump(jfr);
            Map<String, Integer> stacks = pinnedStacks(jfr);
            long pinnedEvents = stacks.values().stream().mapToLong(Integer::longValue).sum();
            Run run = new Run(n, (double) (blocked - before) / n, startNanos, answerNanos, pinnedEvents, stacks);
            log.printf(Locale.ROOT, "    %s: %,d virtual threads blocked on keyed waits in %.0f ms, %.1f B of heap"
                            + " each; complete() of each key until all ended: %.0f ms; %d %s events%s%n", waitsId, n,
                    startNanos / 1e6, run.heapBytesPerWait(), answerNanos / 1e6, pinnedEvents, PINNED_EVENT,
                    stacks.isEmpty() ? "" : ", at " + stacks);
            return run;
        } finally {
            if (Boolean.getBoolean(KEEP_JFR)) {
                log.printf("    the recording: %s (jfr print --events %s %s)%n", jfr, PINNED_EVENT, jfr);
            } else {
                Files.deleteIfExists(jfr);
            }
        }
    }

    /** Waits until every thread registered its wait and parks in join() (state WAITING). */
    private static void awaitBlocked(Thread[] threads, LongAdder blocking, int n) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
        int i = 0;
        while (i < n) {
            if (System.nanoTime() - giveUp > 0) {
                throw new IllegalStateException(String.format(Locale.ROOT, "%,d of %,d virtual threads registered a"
                        + " wait, thread %d is %s, after %d s", blocking.sum(), n, i, threads[i].getState(),
                        GIVE_UP_SECONDS));
            }
            if (blocking.sum() == n && threads[i].getState() == Thread.State.WAITING) {
                i++;
            } else {
                Threads.sleepMillis(1);
            }
        }
    }

    /**
     * The pinned events of the recording, counted by what blocked and why it pinned (JDK 24 and later
     * say; "?" before) and their three top frames.
     */
    private static Map<String, Integer> pinnedStacks(Path jfr) throws IOException {
        Map<String, Integer> stacks = new TreeMap<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(jfr)) {
            if (!event.getEventType().getName().equals(PINNED_EVENT)) {
                continue;
            }
            StringBuilder top = new StringBuilder(field(event, "blockingOperation")).append(", ")
                    .append(field(event, "pinnedReason")).append(": ");
            if (event.getStackTrace() != null) {
                for (RecordedFrame frame : event.getStackTrace().getFrames().stream().limit(3).toList()) {
                    top.append(top.charAt(top.length() - 1) == ' ' ? "" : " < ")
                            .append(frame.getMethod().getType().getName())
                            .append('.').append(frame.getMethod().getName());
                }
            }
            stacks.merge(top.toString(), 1, Integer::sum);
        }
        return stacks;
    }

    /** A field of {@code event} as text, or "?" where this JDK's event has no such field. */
    private static String field(RecordedEvent event, String name) {
        if (!event.hasField(name)) {
            return "?";
        }
        Object value = event.getValue(name);
        return String.valueOf(value);
    }

    /** Starts a virtual thread running {@code body}, through {@code start} ({@link #startVirtualThread()}). */
    private static Thread startVirtual(MethodHandle start, Runnable body) {
        try {
            return (Thread) start.invokeExact(body);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.startVirtualThread threw", e);
        }
    }

    /** {@code Thread.startVirtualThread(Runnable)} where the JDK has it (21 and later), else null. */
    private static MethodHandle startVirtualThread() {
        try {
            return MethodHandles.publicLookup().findStatic(Thread.class, "startVirtualThread",
                    MethodType.methodType(Thread.class, Runnable.class));
        } catch (NoSuchMethodException | IllegalAccessException absent) {
            return null;
        }
    }
}
