package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.PurgatoryStats;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The history on a manual time line: the test sets the counters and says when each sample is taken. */
class DemoHistoryTest {

    private static final long START_NANOS = -5_000_000_000L; // any origin: nanoTime may be negative

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Timer produceLateness = Timer.builder("purgatory.expiration.lateness")
            .tag("purgatory", "produce").register(registry);
    private final AtomicReference<PurgatoryStats> produce = new AtomicReference<>(counters("produce", 0, 0, 0, 0, 0));
    private final AtomicReference<PurgatoryStats> orders = new AtomicReference<>(counters("orders", 0, 0, 0, 0, 0));
    private final ReplicaManager replicas = ReplicaManager.forTesting(ReplicaManager.Config.defaults(),
            new ManualTimer());
    private final DemoHistory history = new DemoHistory(
            new DemoStats(registry, replicas, List.of(produce::get, orders::get)), START_NANOS);

    @AfterEach
    void close() {
        replicas.close();
    }

    private static PurgatoryStats counters(String name, long completed, long expired, long cancelled, long errors,
                                           long rejected) {
        return new PurgatoryStats(name, 7, 7, 3, completed, 1, expired, cancelled, errors, rejected, 0, 0);
    }

    private static long at(double seconds) {
        return START_NANOS + (long) (seconds * 1e9);
    }

    @Test
    void sample_countersMoved_ratesAreTheDifferencesOverTheTimeSinceThePreviousSample() {
        produce.set(counters("produce", 100, 10, 4, 2, 6));
        DemoHistory.Figures first = history.sample(at(1)).purgatories().get(0);

        assertThat(first.name()).isEqualTo("produce");
        assertThat(first.pending()).isEqualTo(7);
        assertThat(first.completedPerSec()).as("completed and completed at once, since the start").isEqualTo(101);
        assertThat(first.expiredPerSec()).isEqualTo(10);
        assertThat(first.cancelledPerSec()).isEqualTo(4);
        assertThat(first.callbackErrorsPerSec()).isEqualTo(2);
        assertThat(first.rejectedPerSec()).isEqualTo(6);

        produce.set(counters("produce", 400, 10, 5, 2, 6));
        DemoHistory.Figures second = history.sample(at(3)).purgatories().get(0);

        assertThat(second.completedPerSec()).as("300 in 2 s").isEqualTo(150);
        assertThat(second.expiredPerSec()).isZero();
        assertThat(second.cancelledPerSec()).isEqualTo(0.5);
    }

    @Test
    void sample_latenessIsTheMeanOfTheIntervalsExpirations_NaNForAnIntervalWithoutAny() {
        produceLateness.record(2, TimeUnit.MILLISECONDS);
        produceLateness.record(4, TimeUnit.MILLISECONDS);
        DemoHistory.Sample first = history.sample(at(1));
        produceLateness.record(10, TimeUnit.MILLISECONDS);
        DemoHistory.Sample second = history.sample(at(2));
        DemoHistory.Sample third = history.sample(at(3));

        assertThat(first.purgatories().get(0).latenessMeanMs()).isCloseTo(3, within(1e-9));
        assertThat(second.purgatories().get(0).latenessMeanMs()).isCloseTo(10, within(1e-9));
        assertThat(third.purgatories().get(0).latenessMeanMs()).isNaN();
        assertThat(first.purgatories().get(1).latenessMeanMs()).as("orders: no lateness timer").isNaN();
    }

    @Test
    void samplesAfter_beyondTheCapacity_keepsTheLast120_oldestFirst() {
        for (int second = 1; second <= DemoHistory.CAPACITY + 10; second++) {
            history.sample(at(second));
        }

        List<DemoHistory.Sample> all = history.samplesAfter(-1);
        assertThat(all).hasSize(DemoHistory.CAPACITY);
        assertThat(all.get(0).seq()).isEqualTo(10);
        assertThat(all.get(0).uptimeMs()).isEqualTo(11_000);
        assertThat(all.get(all.size() - 1).seq()).isEqualTo(129);
        assertThat(history.samplesAfter(125)).extracting(DemoHistory.Sample::seq).containsExactly(126L, 127L, 128L,
                129L);
        assertThat(history.samplesAfter(129)).isEmpty();
        assertThat(history.samplesAfter(3)).as("older than the ring: what it holds").hasSize(DemoHistory.CAPACITY);
    }

    @Test
    void toJson_samplesTaken_givesTheLatestSeqAndNullForAnUnknownFigure() {
        history.sample(at(1));
        history.sample(at(2));

        String json = history.toJson(0);

        assertThat(json).startsWith("{\"capacity\":120,\"intervalMs\":1000,\"latestSeq\":1,\"samples\":[{\"seq\":1,"
                + "\"uptimeMs\":2000,\"purgatories\":[{\"name\":\"produce\",\"pending\":7,");
        assertThat(json).contains("\"latenessMeanMs\":null").doesNotContain("\"seq\":0,", "NaN");
    }
}
