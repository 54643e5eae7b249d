package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.ClosePolicy;
import io.purgatory.DelayedOperation;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.Outcome;
import io.purgatory.timer.ManualTimer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Our side of the differences docs/porting-from-kafka.md lists, each as a test on a ManualTimer
 * (Kafka's side is checked by KafkaBehaviourTest in the benchmarks module). The page's code blocks
 * marked {@code <!-- snippet: name -->} are the regions of this file between {@code // snippet: name}
 * and {@code // end: name}, so they compile and run.
 */
class PortingFromKafkaTest {

    private static final Path ROOT = Path.of("..");
    private static final Path DOC = ROOT.resolve("docs/porting-from-kafka.md");
    private static final Path SOURCE = ROOT.resolve("examples/src/test/java/io/purgatory/examples/"
            + "PortingFromKafkaTest.java");
    private static final long LONG_DELAY_MS = 100_000;

    // snippet: operation
    /** Waits until a partition's high watermark reaches an offset, as Kafka's DelayedProduce does. */
    static class AwaitOffset extends DelayedOperation {
        private final AtomicLong highWatermark;
        private final long requiredOffset;
        final CompletableFuture<String> response = new CompletableFuture<>();
        final AtomicInteger expirations = new AtomicInteger();

        AwaitOffset(long timeoutMs, AtomicLong highWatermark, long requiredOffset) {
            super(timeoutMs);
            this.highWatermark = highWatermark;
            this.requiredOffset = requiredOffset;
        }

        @Override
        public boolean tryComplete() { // public as in Kafka, or protected; no lock: tries never overlap
            return highWatermark.get() >= requiredOffset && forceComplete();
        }

        @Override
        public void onComplete() { // once: on completion, on expiry, or when close() settles it
            response.complete(highWatermark.get() >= requiredOffset ? "NONE" : "REQUEST_TIMED_OUT");
        }

        @Override
        public void onExpiration() { // after onComplete, when the timeout passed
            expirations.incrementAndGet();
        }
    }
    // end: operation

    // snippet: setup
    private final ManualTimer timer = new ManualTimer(); // Kafka's MockTimer, in the main jar
    private final List<Callback> failures = new CopyOnWriteArrayList<>();
    private final DelayedOperationPurgatory<AwaitOffset> purgatory = DelayedOperationPurgatory.builder("Produce")
            .timer(timer).reaperEnabled(false) // Kafka: new DelayedOperationPurgatory<>("Produce", timer, 0, false)
            .errorHandler((name, op, callback, error) -> failures.add(callback)) // default: logged at ERROR
            .build();
    private final TopicPartition partition = new TopicPartition("orders", 0); // any key with equals and hashCode
    private final AtomicLong highWatermark = new AtomicLong();
    // end: setup

    @AfterEach
    void tearDown() {
        purgatory.close();
        timer.close();
    }

    @Test
    void checkAndComplete_afterTheHighWatermarkMoves_completesTheOperationOnTheCallersThread() {
        // snippet: trigger
        AwaitOffset produce = new AwaitOffset(30_000, highWatermark, 42);
        purgatory.tryCompleteElseWatch(produce, List.of(partition)); // false: it waits
        highWatermark.set(42);
        int completed = purgatory.checkAndComplete(partition); // 1: onComplete ran on this thread
        // end: trigger

        assertThat(completed).isEqualTo(1);
        assertThat(produce.response).isCompletedWithValue("NONE");
    }

    @Test
    void checkAndComplete_atAPosition_triesOnlyTheOperationsThatPositionReaches() {
        AwaitOffset near = new AwaitOffset(30_000, highWatermark, 42);
        AwaitOffset far = new AwaitOffset(30_000, highWatermark, 1_000);
        purgatory.tryCompleteElseWatch(far, partition, 1_000);
        // snippet: positioned
        purgatory.tryCompleteElseWatch(near, partition, 42); // waits until the partition's position reaches 42
        highWatermark.set(42);
        purgatory.checkAndComplete(partition, 42); // tries the operations at 42 or below, and no other
        // end: positioned

        assertThat(near.response).isCompletedWithValue("NONE");
        assertThat(far.isCompleted()).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
    }

    @Test
    void expiry_atExactlyTheTimeout_notOneMillisecondBefore() {
        AwaitOffset produce = new AwaitOffset(30_000, highWatermark, 42);
        purgatory.tryCompleteElseWatch(produce, List.of(partition));

        timer.advanceClock(29_999);
        assertThat(produce.isCompleted()).isFalse();
        timer.advanceClock(1); // Kafka's MockTimer runs it one millisecond later

        assertThat(produce.response).isCompletedWithValue("REQUEST_TIMED_OUT");
        assertThat(produce.expirations).hasValue(1);
    }

    @Test
    void close_pendingOperation_isExpiredByDefaultInsteadOfDropped() {
        AwaitOffset produce = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        purgatory.tryCompleteElseWatch(produce, List.of(partition));

        purgatory.close();

        assertThat(produce.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(produce.response).isCompletedWithValue("REQUEST_TIMED_OUT");
        assertThat(produce.expirations).hasValue(1);
        assertThat(purgatory.watched()).isZero();
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(new AwaitOffset(1, highWatermark, 0),
                List.of(partition))).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void closePolicyCancel_pendingOperation_getsNeitherOnCompleteNorOnExpiration() {
        // snippet: close
        DelayedOperationPurgatory<AwaitOffset> fetch = DelayedOperationPurgatory.builder("Fetch")
                .closePolicy(ClosePolicy.CANCEL) // the nearest to Kafka's shutdown(): only onCancel runs
                .build();
        AwaitOffset pending = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        fetch.tryCompleteElseWatch(pending, List.of(partition));
        fetch.close(); // Kafka: fetch.shutdown()
        // end: close

        assertThat(pending.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(pending.response).isNotDone();
        assertThat(pending.expirations).hasValue(0);
        assertThat(fetch.watched()).isZero();
    }

    @Test
    void watched_afterTheOperationCompletes_dropsAtOnceOnEveryKey() {
        AwaitOffset produce = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        purgatory.tryCompleteElseWatch(produce, List.of(partition, new TopicPartition("orders", 1),
                new TopicPartition("orders", 2)));
        assertThat(purgatory.watched()).isEqualTo(3);

        assertThat(produce.forceComplete()).isTrue();

        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void tryCompleteElseWatch_duplicateKeys_watchesEachDistinctKeyOnce() {
        TopicPartition other = new TopicPartition("orders", 1);

        purgatory.tryCompleteElseWatch(new AwaitOffset(LONG_DELAY_MS, highWatermark, 42),
                List.of(partition, other, new TopicPartition("orders", 0)));

        assertThat(purgatory.watched()).isEqualTo(2);
    }

    @Test
    void cancel_pendingOperation_settlesItLeavingEveryKeyAndTheTimer() {
        Cancellable op = new Cancellable();
        purgatory.tryCompleteElseWatch(op, List.of(partition, new TopicPartition("orders", 1)));

        assertThat(op.cancel()).isTrue();

        assertThat(op.isCompleted()).isTrue();
        assertThat(op.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(op.cancellations).hasValue(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void cancelForKey_operationOnTwoKeys_leavesBothAndRunsOnCancel() {
        Cancellable op = new Cancellable();
        purgatory.tryCompleteElseWatch(op, List.of(partition, new TopicPartition("orders", 1)));

        assertThat(purgatory.cancelForKey(partition)).containsExactly(op);

        assertThat(op.cancellations).hasValue(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void checkAndComplete_aTryThrows_itIsReportedAndTheOthersOnTheKeyStillComplete() {
        AwaitOffset throwing = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42) {
            @Override
            public boolean tryComplete() {
                throw new IllegalStateException("tryComplete failed");
            }
        };
        AwaitOffset ready = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        purgatory.tryCompleteElseWatch(throwing, List.of(partition));
        purgatory.tryCompleteElseWatch(ready, List.of(partition));
        failures.clear(); // the submission's two tries threw too
        highWatermark.set(42);

        assertThat(purgatory.checkAndComplete(partition)).isEqualTo(1);

        assertThat(ready.response).isCompletedWithValue("NONE");
        assertThat(failures).containsExactly(Callback.TRY_COMPLETE);
        assertThat(throwing.isCompleted()).as("a throwing try counts as 'not yet'").isFalse();
        assertThat(timer.size()).as("and it keeps its timeout").isEqualTo(1);
    }

    @Test
    void tryCompleteElseWatch_settledOrAlreadyWatchedOperation_throwsIllegalState() {
        AwaitOffset completed = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        completed.forceComplete();
        AwaitOffset pending = new AwaitOffset(LONG_DELAY_MS, highWatermark, 42);
        purgatory.tryCompleteElseWatch(pending, List.of(partition));

        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(completed, List.of(partition)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already settled");
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(pending, List.of(partition)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already submitted");
        assertThat(purgatory.watched()).isEqualTo(1);
    }

    @Test
    void delay_longMaxValue_neverExpires() {
        AwaitOffset forever = new AwaitOffset(Long.MAX_VALUE, highWatermark, 42);
        purgatory.tryCompleteElseWatch(forever, List.of(partition));

        timer.advanceClock(365L * 24 * 3600 * 1000 * 1000); // a thousand years

        assertThat(forever.isCompleted()).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
    }

    @Test
    void numDelayed_timerDisabled_countsThePendingOperations() {
        try (DelayedOperationPurgatory<AwaitOffset> untimed = DelayedOperationPurgatory.builder("untimed")
                .timerEnabled(false).reaperEnabled(false).build()) {
            untimed.tryCompleteElseWatch(new AwaitOffset(1, highWatermark, 42), List.of(partition));

            assertThat(untimed.numDelayed()).isEqualTo(1);
            assertThat(untimed.watched()).isEqualTo(1);
        }
    }

    @Test
    void doc_snippets_areRegionsOfThisFile() throws IOException {
        Map<String, String> regions = regions(Files.readAllLines(SOURCE));
        Matcher block = Pattern.compile("<!-- snippet: (\\S+) -->\n```java\n(.*?)```\n", Pattern.DOTALL)
                .matcher(Files.readString(DOC));
        List<String> shown = new ArrayList<>();
        while (block.find()) {
            shown.add(block.group(1));
            assertThat(regions).as("regions of this file").containsKey(block.group(1));
            assertThat(block.group(2)).as("the page's snippet %s (copy the region into the page)", block.group(1))
                    .isEqualTo(regions.get(block.group(1)));
        }
        assertThat(shown).as("snippets on the page").containsExactlyInAnyOrderElementsOf(regions.keySet());
    }

    /** The regions between {@code // snippet: name} and {@code // end: name}, less their common indentation. */
    private static Map<String, String> regions(List<String> lines) {
        Map<String, String> regions = new LinkedHashMap<>();
        String name = null;
        List<String> body = new ArrayList<>();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.startsWith("// snippet: ")) {
                name = trimmed.substring("// snippet: ".length());
                body.clear();
            } else if (name != null && trimmed.equals("// end: " + name)) {
                int indent = body.stream().filter(l -> !l.isBlank())
                        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
                StringBuilder text = new StringBuilder();
                body.forEach(l -> text.append(l.isBlank() ? "" : l.substring(indent)).append('\n'));
                regions.put(name, text.toString());
                name = null;
            } else if (name != null) {
                body.add(line);
            }
        }
        return regions;
    }

    /** An operation whose offset is never reached here, so that only a cancel settles it. */
    private final class Cancellable extends AwaitOffset {
        final AtomicInteger cancellations = new AtomicInteger();

        Cancellable() {
            super(LONG_DELAY_MS, highWatermark, Long.MAX_VALUE);
        }

        @Override
        protected void onCancel() {
            cancellations.incrementAndGet();
        }
    }
}
