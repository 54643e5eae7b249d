package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The broker is restarted (a real process restart, same port and data) while events stream to
 * two instances: every event reaches every instance exactly once, and every wait is answered.
 */
@ExtendWith(SharedBroker.class)
class BrokerRestartTest {

    @Test
    void feed_brokerRestartMidStream_losesNothing() throws Exception {
        streamThroughRestarts(3_000, 1);
    }

    /** The longer version: several restarts, one of them a kill (mvn -Pslow). */
    @Test
    @Tag("slow")
    void feed_restartsAndAKillMidStream_loseNothing() throws Exception {
        streamThroughRestarts(20_000, 4);
    }

    private static void streamThroughRestarts(int events, int restarts) throws Exception {
        String topic = SharedBroker.newTopic("restart", 3);
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             Instance a = Instance.start("a", topic, Duration.ofSeconds(60), null);
             Instance b = Instance.start("b", topic, Duration.ofSeconds(60), null)) {
            List<CompletableFuture<String>> waits = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                waits.add(a.waits.await("order-" + i, Duration.ofMinutes(5)));
            }
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < events; i++) {
                    sent.add(b.send("order-" + i, "paid-" + i));
                    if (i % 10 == 0) {
                        pace();
                    }
                }
            }, "test-producer");
            producer.start();

            for (int r = 1; r <= restarts; r++) {
                long before = (long) events * r / (restarts + 1);
                a.awaitCaughtUp(before); // the feeds are mid-stream
                if (r == restarts && restarts > 1) {
                    SharedBroker.broker().kill();
                } else {
                    SharedBroker.broker().stop();
                }
                assertThat(a.feed.stats().eventsRead()).as("stopped mid-stream").isLessThan(events);
                SharedBroker.broker().start();
            }
            producer.join(TimeUnit.SECONDS.toMillis(300));
            for (Future<RecordMetadata> ack : sent) {
                Instance.get(ack);
            }

            for (int i = 0; i < events; i++) {
                assertThat(waits.get(i)).succeedsWithin(Duration.ofMinutes(2)).isEqualTo("paid-" + i);
            }
            b.awaitCaughtUp(events);
            Eventually.await("both feeds caught up", () -> a.feed.stats().lag() == 0 && b.feed.stats().lag() == 0);
            assertThat(a.feed.stats().eventsRead()).as("no gap, no duplicate").isEqualTo(events);
            assertThat(a.feed.stats().eventsCompleted()).isEqualTo(events);
            assertThat(b.feed.stats().eventsRead()).isEqualTo(events);
            assertThat(b.feed.stats().eventsNoWaiter()).isEqualTo(events);
            assertThat(a.feed.stats().running()).isTrue();
            assertThat(log.events()).as("only the broker's absence is logged").allSatisfy(e -> assertThat(
                    e.getFormattedMessage()).containsAnyOf("could not check", "could not read", "could not look up"));
        }
    }

    private static void pace() {
        try {
            Thread.sleep(10); // a stream, not a burst: the restart falls in its middle
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
