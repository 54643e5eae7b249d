package io.purgatory.bench;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Workload 10, fan-out: n waits on one hot key (n of {@link Sizes#fanOutWaits()}), answered by one
 * call, {@code checkAndComplete(key)} on a purgatory (ours, Kafka's) or {@code complete(key, value)}
 * on keyed waits (ours, and the map of futures, {@link JdkKeyedWaits}, whose one future per key
 * carries every waiter's dependent stage). Measures the time from the call to the last of the n
 * answers (each counts itself), and meanwhile the latency of a loop on another thread that waits
 * on another key and answers it, round trip after round trip, cycling through
 * {@value FanOutTarget#OTHER_KEYS} keys (so that it meets the hot key's shard, whatever an
 * implementation's sharding): its p50, p99 and max over the round trips that overlapped the answer
 * ({@link OtherKeyLoop}), and its max over those that ended before it (the machine's own tail, the
 * yardstick of the max).
 * Bars, at 100,000 waits: all answered within 50 ms, and no round trip of the other key over 1 ms.
 */
final class FanOutWorkload extends Workload {

    /** The size the bars are for. */
    static final int BARRED_SIZE = 100_000;
    static final double ANSWER_BAR_MS = 50;
    static final double OTHER_KEY_BAR_MS = 1;
    /** How long the answer may take before the run is declared failed. */
    private static final long GIVE_UP_SECONDS = 120;

    private final boolean keyed;
    private final Map<String, Metric> metrics = new HashMap<>();

    private FanOutWorkload(String id, String title, boolean keyed, List<Impl> impls) {
        super(id, title, impls);
        this.keyed = keyed;
    }

    /** checkAndComplete on ours and Kafka's purgatory. */
    static FanOutWorkload purgatory() {
        return new FanOutWorkload("fanout-purgatory", "10 fan-out (purgatory)", false, List.of(Impl.OURS, Impl.KAFKA));
    }

    /** complete on ours' keyed waits and on the map of futures (the JDK column). */
    static FanOutWorkload keyedWaits() {
        return new FanOutWorkload("fanout-keyed", "10 fan-out (keyed waits)", true, List.of(Impl.OURS, Impl.JDK));
    }

    @Override
    void runOnce(Impl impl, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        for (int n : sizes.fanOutWaits()) {
            runOnce(impl, n, sizes, recorder, log);
            Probe.settle(sizes);
        }
    }

    private void runOnce(Impl impl, int n, Sizes sizes, Results.Recorder recorder, PrintStream log) {
        String name = id() + "-" + impl.id();
        try (FanOutTarget target = keyed
                ? FanOutTarget.keyedWaits(impl == Impl.JDK ? KeyedWaitsUnderTest.JDK : KeyedWaitsUnderTest.OURS, name)
                : FanOutTarget.purgatory(impl, name)) {
            long r0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                target.waitOnHot();
            }
            long registerNanos = System.nanoTime() - r0;
            Probe.settle(sizes); // the registration's garbage is not the answer's
            long t0;
            long t1;
            int said;
            try (OtherKeyLoop loop = new OtherKeyLoop(target, name)) {
                Threads.sleepMillis(sizes.fanOutBeforeMillis());
                loop.answering();
                t0 = System.nanoTime();
                said = target.answerHot();
                long giveUp = t0 + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
                while (target.answered() < n) {
                    if (System.nanoTime() - giveUp > 0) {
                        throw new IllegalStateException(String.format(Locale.ROOT, "%s: %,d of %,d waits answered after"
                                + " %d s", name, target.answered(), n, GIVE_UP_SECONDS));
                    }
                    Thread.onSpinWait();
                }
                t1 = System.nanoTime();
                loop.awaitRoundTripDuring(TimeUnit.SECONDS.toMillis(GIVE_UP_SECONDS));
                loop.answered();
                loop.stop(); // a round trip under way when the answer ended counts as during
                record(recorder, n, (t1 - t0) / 1e6, loop, log, impl, said, registerNanos);
            }
        }
    }

    private void record(Results.Recorder recorder, int n, double answerMs, OtherKeyLoop loop, PrintStream log,
                        Impl impl, int said, long registerNanos) {
        long[] during = loop.during();
        long[] before = loop.before();
        double p50Us = Probe.percentile(during, 0.50) / 1e3;
        double p99Us = Probe.percentile(during, 0.99) / 1e3;
        double maxMs = during.length == 0 ? Double.NaN : during[during.length - 1] / 1e6;
        double beforeP99Us = Probe.percentile(before, 0.99) / 1e3;
        double beforeMaxMs = before.length == 0 ? Double.NaN : before[before.length - 1] / 1e6;
        recorder.record(metric(n, "answer all (ms)", Bar.atMost(ANSWER_BAR_MS)), answerMs);
        recorder.record(metric(n, "other key's round trips during it (count)", Bar.NONE), during.length);
        recorder.record(metric(n, "other key's round trip during it, p50 (us)", Bar.NONE), p50Us);
        recorder.record(metric(n, "other key's round trip during it, p99 (us)", Bar.NONE), p99Us);
        recorder.record(metric(n, "other key's round trip during it, max (ms)", Bar.atMost(OTHER_KEY_BAR_MS)),
                maxMs);
        recorder.record(metric(n, "other key's round trip before it, max (ms)", Bar.NONE), beforeMaxMs);
        log.printf(Locale.ROOT, "    %s, %,d waits on one key (registered in %.1f ms): one call answered %,d (it"
                        + " said %,d) in %.2f ms; the other key meanwhile: %,d round trips, p50 %.1f us, p99 %.1f us,"
                        + " max %.3f ms; before it: %,d round trips, p99 %.1f us, max %.3f ms%s%n",
                impl.id(), n, registerNanos / 1e6, n, said, answerMs, during.length, p50Us, p99Us, maxMs,
                before.length, beforeP99Us, beforeMaxMs,
                loop.unanswered() == 0 ? "" : String.format(Locale.ROOT, "; %,d round trips UNANSWERED",
                        loop.unanswered()));
        if (loop.unanswered() > 0) {
            throw new IllegalStateException(impl.id() + " left " + loop.unanswered() + " of the other key's waits"
                    + " unanswered by their own answer");
        }
    }

    /** The row of {@code what} at {@code n} waits; the bar only at {@value #BARRED_SIZE}. */
    private Metric metric(int n, String what, Bar bar) {
        String name = String.format(Locale.ROOT, "%,d waits: %s", n, what);
        return metrics.computeIfAbsent(name, k -> new Metric(title(), k, n == BARRED_SIZE ? bar : Bar.NONE,
                keyed ? Impl.JDK : Impl.KAFKA));
    }
}
