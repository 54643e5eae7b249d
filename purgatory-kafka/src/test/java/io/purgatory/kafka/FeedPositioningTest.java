package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitTimeoutException;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Where each partition is read from, on a {@link FakeBroker}: a lookup that fails when the feed
 * starts (a broker restarting), and a position the broker no longer has, both of which a real
 * broker shows only under a race.
 */
class FeedPositioningTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    @Test
    void start_lookupFailsOnce_isTriedAgainAndEveryPartitionIsRead() {
        FakeBroker broker = new FakeBroker("t", 3);
        broker.failNextLookup(new TimeoutException("the broker restarts"));
        KeyedWaits<String, String> waits = KeyedWaits.builder("a1").retainEvents(WINDOW, 100).build();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> feed = broker.feed(waits).closeWaits(true).build().start()) {
            CompletableFuture<String> wait = waits.await("order-2", Duration.ofSeconds(60));
            for (int p = 0; p < 3; p++) {
                broker.append(p, "order-" + p, "paid-" + p);
            }

            assertThat(wait).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid-2");
            Eventually.await("the three records are counted", () -> FeedLifecycleTest.outcomes(feed.stats()) == 3);
            Eventually.await("ready", feed::isReady);
            FeedStats stats = feed.stats();
            assertThat(stats.partitions()).isEqualTo(3);
            assertThat(stats.eventsRead()).isEqualTo(3);
            assertThat(stats.consumerErrors()).as("the failed lookup").isEqualTo(1);
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("could not look up where to read");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("the broker restarts");
            });
        }
    }

    @Test
    void feedLoop_stepByStepWithFailingLookups_assignsAPartitionOnlyWithItsPosition() {
        ManualClock clock = new ManualClock();
        FakeBroker broker = new FakeBroker("t", 2);
        broker.append(0, "order-0", "paid-0");
        broker.failNextLookup(new TimeoutException("first"));
        broker.failNextLookup(new TimeoutException("second"));
        KeyedWaits<String, String> waits = KeyedWaits.builder("steps").retainEvents(WINDOW, 100).build();
        KafkaFeed<String, String> feed = broker.feed(waits).clock(clock).build();
        feed.health().started(clock.nanoTime());
        FeedLoop<String, String> loop = new FeedLoop<>(feed.config(), broker, broker.admin(), feed.counters(),
                feed.health());
        try (LogCapture log = new LogCapture(KafkaFeed.class)) {
            int failedLookups = 0;
            for (int step = 0; step < 50 && broker.assignment().size() < 2; step++) {
                loop.step();
                loop.positioner().checkInvariants();
                for (TopicPartition partition : broker.assignment()) {
                    assertThat(broker.position(partition)).as("an assigned partition has its position")
                            .isBetween(0L, 1L);
                }
                failedLookups = (int) feed.stats().consumerErrors();
                clock.advance(100, TimeUnit.MILLISECONDS);
            }
            assertThat(failedLookups).isEqualTo(2);
            assertThat(broker.assignment()).hasSize(2);
            for (int step = 0; step < 50 && feed.stats().eventsRead() < 1; step++) {
                loop.step();
                loop.positioner().checkInvariants();
                clock.advance(100, TimeUnit.MILLISECONDS);
            }
            assertThat(waits.await("order-0", Duration.ZERO)).isCompletedWithValue("paid-0");
            assertThat(feed.stats().state()).isEqualTo(FeedState.READY);
            assertThat(log.events()).as("the second failure within 10 s is counted, not logged").hasSize(1);
        }
        waits.close();
    }

    @Test
    void poll_positionTheBrokerNoLongerHas_isCountedLoggedAndPositionedAgainByTimestamp() {
        FakeBroker broker = new FakeBroker("t", 1);
        KeyedWaits<String, String> waits = KeyedWaits.builder("offsets").retainEvents(WINDOW, 100).build();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> feed = broker.feed(waits).closeWaits(true).build().start()) {
            Eventually.await("ready", feed::isReady);
            for (int offset = 0; offset < 3; offset++) {
                broker.append(0, "order-" + offset, "paid");
            }
            Eventually.await("read 3", () -> FeedLifecycleTest.outcomes(feed.stats()) == 3);

            synchronized (broker) { // offsets 3 to 6 are deleted while the feed lags
                for (int offset = 3; offset < 10; offset++) {
                    broker.append(0, "order-" + offset, "paid");
                }
                broker.deleteBefore(0, 7);
            }

            Eventually.await("read the rest", () -> FeedLifecycleTest.outcomes(feed.stats()) == 6);
            Eventually.await("ready again", feed::isReady);
            assertThat(feed.stats().consumerErrors()).isEqualTo(1);
            assertThat(feed.stats().partitions()).isEqualTo(1);
            assertThat(waits.await("order-9", Duration.ZERO)).isCompletedWithValue("paid");
            assertThat(waits.await("order-5", Duration.ZERO)).as("deleted before it was read")
                    .failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(WaitTimeoutException.class);
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("t-0=3", "no longer on the broker");
            });
        }
    }
}
