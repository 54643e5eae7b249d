package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.timer.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The feed's loop step by step, on a {@link FakeBroker} (which answers every lookup at once) and a
 * manual clock: what the feed's state and lag say between steps, and between the records of one
 * batch. Time passes only when the test advances the clock: 100 ms a step, and a mapping function
 * may advance it too, as a slow record would.
 */
class FeedStepTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final long STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ManualClock clock = new ManualClock();
    private final KeyedWaits<String, String> waits = KeyedWaits.builder("steps").retainEvents(WINDOW, 10_000).build();
    private FakeBroker broker;
    private KafkaFeed<String, String> feed;
    private FeedLoop<String, String> loop;

    @AfterEach
    void close() {
        waits.close();
    }

    @Test
    void check_partitionAddedToTheTopic_isFoundWithinASecondAndTheFeedIsNotReadyUntilItIsRead() {
        start(new FakeBroker("t", 1), UnaryOperator.identity()); // the default settings
        stepUntil("ready", 100, feed::isReady);
        for (int i = 0; i < 30; i++) { // 3 s: past the checks of the start, into the schedule of a running feed
            step();
        }
        assertThat(feed.isReady()).isTrue();
        broker.createTopic(2);
        broker.append(1, "order-1", "paid");
        CompletableFuture<String> wait = waits.await("order-1", Duration.ofMinutes(1));

        List<String> seen = new ArrayList<>(); // the state after each step, with the partitions read then
        long added = clock.nanoTime();
        long bound = BrokerChecks.CHECK_NANOS + 3 * STEP_NANOS;
        while (broker.assignment().size() < 2 && clock.nanoTime() - added <= bound) {
            step();
            seen.add(feed.state() + " reading " + broker.assignment().size());
        }

        assertThat(broker.assignment()).as("partition 1 is read within a check (1 s) and a few steps; seen: %s", seen)
                .hasSize(2);
        int found = seen.indexOf("POSITIONING reading 1");
        assertThat(found).as("the check that found partition 1 turned the feed not ready; seen: %s", seen)
                .isNotNegative();
        assertThat(seen.subList(found, seen.size())).as("not ready until partition 1 is read")
                .doesNotContain("READY reading 1");
        stepUntil("ready again", 10, feed::isReady);
        assertThat(wait).isCompletedWithValue("paid");
    }

    @Test
    void check_answerTakenBetweenTheRecordsOfABatch_turnsTheFeedNotReadyBeforeTheNextRecord() {
        List<FeedState> seenByProbe = new ArrayList<>();
        start(new FakeBroker("t", 1), builder -> builder.value(record -> {
            String key = new String(record.key(), UTF_8);
            if (key.equals("slow")) {
                clock.advance(2 * STEP_NANOS, TimeUnit.NANOSECONDS); // the loop looks at the broker after it
            } else if (key.equals("probe")) {
                seenByProbe.add(feed.state());
            }
            return new String(record.value(), UTF_8);
        }));
        stepUntil("ready", 100, feed::isReady);
        broker.createTopic(2); // partition 1: the broker tells it at the next check
        broker.append(0, "slow", "x");
        broker.append(0, "probe", "x");
        clock.advance(BrokerChecks.CHECK_NANOS, TimeUnit.NANOSECONDS); // the check is due

        step(); // sends the check (answered at once), then polls both records; the answer is taken after "slow"

        assertThat(seenByProbe).as("partition 1 is unread while the probe is handed over")
                .containsExactly(FeedState.POSITIONING);
        stepUntil("ready again", 10, feed::isReady);
        assertThat(broker.assignment()).hasSize(2);
    }

    @Test
    void lag_feedStartingToReadBack_isUnknownUntilTheFirstPollHasMeasuredIt() {
        FakeBroker fake = new FakeBroker("t", 2);
        for (int i = 0; i < 1_000; i++) {
            fake.append(i % 2, "order-" + i, "paid"); // stamped now: within the window, read back on start
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<FeedStats> atFirstPoll = new ArrayList<>();
        List<Double> gaugeAtFirstPoll = new ArrayList<>();
        fake.beforePoll(() -> {
            if (atFirstPoll.isEmpty()) {
                atFirstPoll.add(feed.stats());
                gaugeAtFirstPoll.add(registry.get("purgatory.feed.lag").gauge().value());
            }
        });
        start(fake, UnaryOperator.identity());
        new KafkaFeedMetrics(feed).bindTo(registry);

        stepUntil("ready", 100, feed::isReady);

        assertThat(atFirstPoll).singleElement().satisfies(stats -> {
            assertThat(stats.state()).isEqualTo(FeedState.READING_BACK);
            assertThat(stats.lag()).as("unknown, not 0: 1,000 records remain").isEqualTo(-1);
            assertThat(stats.maxPartitionLag()).isEqualTo(-1);
        });
        assertThat(gaugeAtFirstPoll).singleElement().satisfies(lag -> assertThat(lag).isNaN());
        assertThat(feed.stats().eventsRead()).isEqualTo(1_000);
        assertThat(feed.stats().lag()).as("measured by the poll").isZero();
        assertThat(registry.get("purgatory.feed.lag").gauge().value()).isZero();
    }

    @Test
    void lag_partitionPositionedWhileTheFeedRuns_isUnknownAgainUntilThePollAfterIt() {
        List<FeedStats> atFirstPollOfTwo = new ArrayList<>();
        FakeBroker fake = new FakeBroker("t", 1);
        fake.beforePoll(() -> {
            if (fake.assignment().size() == 2 && atFirstPollOfTwo.isEmpty()) {
                atFirstPollOfTwo.add(feed.stats());
            }
        });
        start(fake, UnaryOperator.identity());
        stepUntil("ready", 100, feed::isReady);
        assertThat(feed.stats().lag()).isZero();
        fake.createTopic(2);
        for (int i = 0; i < 500; i++) {
            fake.append(1, "order-" + i, "paid");
        }

        stepUntil("partition 1 is read", 200, () -> feed.stats().eventsRead() == 500 && feed.isReady());

        assertThat(atFirstPollOfTwo).singleElement().satisfies(stats -> {
            assertThat(stats.state()).isEqualTo(FeedState.READING_BACK);
            assertThat(stats.lag()).as("unknown, not the 0 of partition 0 alone: 500 records remain").isEqualTo(-1);
        });
        assertThat(feed.stats().lag()).isZero();
    }

    /** A feed of {@code fake}'s topic on the manual clock, its loop stepped by the test (no thread). */
    private void start(FakeBroker fake, UnaryOperator<KafkaFeed.Builder<String, String>> options) {
        broker = fake;
        feed = options.apply(fake.feed(waits).clock(clock)).build();
        feed.health().started(clock.nanoTime());
        loop = new FeedLoop<>(feed.config(), fake, fake.admin(), feed.counters(), feed.health());
    }

    /** One step of the loop, its invariants checked, then 100 ms. */
    private void step() {
        loop.step();
        loop.positioner().checkInvariants();
        clock.advance(STEP_NANOS, TimeUnit.NANOSECONDS);
    }

    private void stepUntil(String what, int maxSteps, BooleanSupplier condition) {
        for (int i = 0; i < maxSteps && !condition.getAsBoolean(); i++) {
            step();
        }
        assertThat(condition.getAsBoolean()).as("%s within %d steps (state %s)", what, maxSteps, feed.state()).isTrue();
    }
}
