package io.purgatory.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.WaitTimeoutException;
import io.purgatory.testsupport.Eventually;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two instances of a service share a real broker: each has its own keyed waits and its own feed
 * of the topic, and an event reaches the topic through one of them only.
 */
@ExtendWith(SharedBroker.class)
class TwoInstancesTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    @Test
    void feed_eventPublishedThroughTheOtherInstance_answersTheWaitOnThisOne() throws Exception {
        String topic = SharedBroker.newTopic("payments", 3);
        try (Instance a = Instance.start("a", topic, WINDOW, null);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            CompletableFuture<String> paid = a.waits.await("order-42", Duration.ofSeconds(60));

            b.publish("order-42", "12.50 EUR");

            assertThat(paid.get(60, TimeUnit.SECONDS)).isEqualTo("12.50 EUR");
            a.awaitCaughtUp(1);
            assertThat(a.feed.stats().eventsCompleted()).isEqualTo(1);
            assertThat(a.feed.stats().waitsAnswered()).isEqualTo(1);
            b.awaitCaughtUp(1);
            assertThat(b.feed.stats().eventsNoWaiter()).as("b read it too, with no wait of its own").isEqualTo(1);
            assertThat(b.waits.retainedEvents()).as("and keeps it for a wait still to come").isEqualTo(1);
            assertThat(b.waits.await("order-42", Duration.ofSeconds(60))).isCompletedWithValue("12.50 EUR");
        }
    }

    @Test
    void feed_topicOfFourPartitions_everyPartitionIsReadByEveryInstance() {
        String topic = SharedBroker.newTopic("orders", 4);
        try (Instance a = Instance.start("a", topic, WINDOW, null);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            int events = 40;
            for (int i = 0; i < events; i++) {
                b.publish("order-" + i, "paid-" + i); // keys spread over the 4 partitions
            }

            a.awaitCaughtUp(events);
            b.awaitCaughtUp(events);
            assertThat(a.feed.stats().partitions()).isEqualTo(4);
            assertThat(a.feed.stats().eventsRead()).isEqualTo(events);
            assertThat(b.feed.stats().eventsRead()).isEqualTo(events);
            for (int i = 0; i < events; i++) {
                assertThat(a.waits.await("order-" + i, Duration.ZERO)).isCompletedWithValue("paid-" + i);
            }
        }
    }

    @Test
    void readBack_eventPublishedBeforeTheWait_answersItInsideTheWindowAndNotAfter() {
        String topic = SharedBroker.newTopic("early", 2);
        ManualTimer timer = new ManualTimer(); // the waits' time: the window passes when the test says so
        try (Instance a = Instance.start("a", topic, WINDOW, timer);
             Instance b = Instance.start("b", topic, WINDOW, null)) {
            b.publish("order-1", "paid");
            a.awaitCaughtUp(1);

            timer.advanceClock(WINDOW.toMillis() - 1);
            assertThat(a.waits.await("order-1", Duration.ofSeconds(20))).as("inside the window")
                    .isCompletedWithValue("paid");

            b.publish("order-2", "paid");
            a.awaitCaughtUp(2);
            timer.advanceClock(WINDOW.toMillis());
            CompletableFuture<String> late = a.waits.await("order-2", Duration.ofSeconds(20));
            assertThat(late).as("after the window").isNotDone();
            timer.advanceClock(20_000);
            assertThat(late).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(WaitTimeoutException.class);
        }
    }

    @Test
    void readBack_instanceStartedAfterTheEvent_readsBackTheWindowByTimestampAndNoFurther() {
        String topic = SharedBroker.newTopic("restarted", 1);
        long now = System.currentTimeMillis();
        try (var producer = Instance.producer()) { // records produced long ago and just now, by their timestamps
            Instance.get(producer.send(new ProducerRecord<>(topic, 0, now - WINDOW.toMillis() - 60_000, "order-old",
                    "paid long ago")));
            Instance.get(producer.send(new ProducerRecord<>(topic, 0, now - 5_000, "order-new", "paid just now")));
        }

        try (Instance late = Instance.start("late", topic, WINDOW, null)) {
            late.awaitCaughtUp(1);
            Eventually.await("the late instance has read back", () -> late.feed.stats().lag() == 0);

            assertThat(late.waits.await("order-new", Duration.ofSeconds(20))).isCompletedWithValue("paid just now");
            assertThat(late.feed.stats().eventsRead()).as("the older event is not read back").isEqualTo(1);
            assertThat(late.waits.await("order-old", Duration.ofSeconds(20))).isNotDone();
        }
    }

    @Test
    void readBack_zero_readsOnlyWhatComesAfterTheStart() {
        String topic = SharedBroker.newTopic("no-window", 1);
        try (Instance b = Instance.start("b", topic, WINDOW, null)) {
            b.publish("order-1", "before");
            try (Instance late = Instance.start("late", topic, WINDOW, null,
                    feed -> feed.readBack(Duration.ZERO))) {
                Eventually.await("positioned", () -> late.feed.stats().partitions() == 1 && !late.feed.isLagging());
                CompletableFuture<String> wait = late.waits.await("order-2", Duration.ofSeconds(60));
                b.publish("order-2", "after");

                assertThat(wait).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("after");
                assertThat(late.feed.stats().eventsRead()).isEqualTo(1);
            }
        }
    }
}
