package io.purgatory.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.Eventually;
import io.purgatory.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The feed's boundary around code it does not own, as a matrix: each function the feed calls (the
 * key and value functions, the waits' complete through a key whose hashCode throws, and the
 * consumer's poll, as an interceptor would make it throw) x each kind of throwable (a
 * RuntimeException, an Error, a real StackOverflowError, a real OutOfMemoryError) x each path a
 * record takes (dispatched live, read back at start, read again after repositioning). After each
 * cell: the feed's thread runs and the feed is ready, the counts are exact, the failure was
 * logged once, and the next good record still answers its wait. On a {@link FakeBroker}.
 */
class FeedFaultMatrixTest {

    private static final Duration WINDOW = Duration.ofSeconds(30);

    /** The user code that throws. */
    enum Call { KEY, VALUE, COMPLETE, POLL }

    /** What it throws. */
    enum Fault {
        RUNTIME, ERROR, STACK_OVERFLOW, OUT_OF_MEMORY;

        Throwable make() {
            return switch (this) {
                case RUNTIME -> new IllegalStateException("a bad record");
                case ERROR -> new Error("an error of the user's");
                case STACK_OVERFLOW -> overflowTheStack();
                case OUT_OF_MEMORY -> exhaustTheHeap();
            };
        }
    }

    /** How the poisoned record reaches the feed. */
    enum Path { DISPATCH, READ_BACK, REPOSITION }

    /** A key of the waits; the poisoned record's key throws from hashCode, as a user's key type may. */
    record Key(String id, Fault poison) {
        @Override
        public int hashCode() {
            if (poison != null) {
                throw FeedFaultMatrixTest.<RuntimeException>asUnchecked(poison.make());
            }
            return id.hashCode();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.id.equals(id) && key.poison == poison;
        }
    }

    static List<Arguments> cells() {
        List<Arguments> cells = new ArrayList<>();
        for (Call call : Call.values()) {
            for (Fault fault : Fault.values()) {
                for (Path path : Path.values()) {
                    cells.add(Arguments.of(call, fault, path));
                }
            }
        }
        return cells;
    }

    @ParameterizedTest(name = "{0} throws {1} on {2}")
    @MethodSource("cells")
    void userCall_throwsOnAPath_costsItsRecordOrItsStepOnly(Call call, Fault fault, Path path) {
        FakeBroker broker = new FakeBroker("t", 1);
        KeyedWaits<Key, String> waits = KeyedWaits.builder("matrix").retainEvents(WINDOW, 100).build();
        CompletableFuture<String> good = waits.await(new Key("good", null), Duration.ofSeconds(60));
        if (path == Path.READ_BACK) {
            poison(broker, call, fault);
        }
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<Key, String> feed = feed(broker, waits, call, fault).build().start()) {
            if (path == Path.DISPATCH) {
                Eventually.await("ready", feed::isReady);
                poison(broker, call, fault);
            } else if (path == Path.REPOSITION) {
                Eventually.await("ready", feed::isReady);
                synchronized (broker) { // two records are deleted before the feed reads them: it repositions
                    broker.append(0, "gone-1", "x");
                    broker.append(0, "gone-2", "x");
                    poison(broker, call, fault);
                    broker.deleteBefore(0, 2);
                }
            }

            assertThat(good).as("the good record after the poisoned one").succeedsWithin(Duration.ofSeconds(60))
                    .isEqualTo("paid");
            Eventually.await("both records counted", () -> FeedLifecycleTest.outcomes(feed.stats()) == 2);
            Eventually.await("ready after it", feed::isReady);
            FeedStats stats = feed.stats();
            assertThat(stats.running()).isTrue();
            assertThat(stats.eventsRead()).isEqualTo(2);
            assertThat(stats.eventsCompleted()).isEqualTo(1);
            assertThat(stats.mappingErrors()).isEqualTo(call == Call.KEY || call == Call.VALUE ? 1 : 0);
            assertThat(stats.completeErrors()).isEqualTo(call == Call.COMPLETE ? 1 : 0);
            assertThat(stats.eventsNoWaiter()).isEqualTo(call == Call.POLL ? 1 : 0);
            assertThat(stats.consumerErrors()).as("consumer errors; logged: %s", log.events())
                    .isEqualTo((call == Call.POLL ? 1 : 0) + (path == Path.REPOSITION ? 1 : 0));

            List<ILoggingEvent> failures = log.events().stream().filter(e -> e.getThrowableProxy() != null
                    && e.getThrowableProxy().getClassName().equals(fault.make().getClass().getName())).toList();
            Level level = fault == Fault.STACK_OVERFLOW || fault == Fault.OUT_OF_MEMORY ? Level.ERROR : Level.WARN;
            assertThat(failures).singleElement().satisfies(e -> assertThat(e.getLevel()).isEqualTo(level));

            CompletableFuture<String> next = waits.await(new Key("next", null), Duration.ofSeconds(60));
            broker.append(0, "next", "paid");
            assertThat(next).as("the next good record").succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
        } finally {
            waits.close();
        }
    }

    @Test
    void dispatch_stageInterruptsTheFeedsThread_doesNotStopIt() {
        FakeBroker broker = new FakeBroker("t", 1);
        KeyedWaits<String, String> waits = KeyedWaits.builder("interrupted").retainEvents(WINDOW, 100).build();
        try (LogCapture log = new LogCapture(KafkaFeed.class);
             KafkaFeed<String, String> feed = broker.feed(waits).closeWaits(true).build().start()) {
            Eventually.await("ready", feed::isReady);
            CompletableFuture<Void> interrupting = waits.await("first", Duration.ofSeconds(60))
                    .thenRun(() -> Thread.currentThread().interrupt()); // runs on the feed's thread
            broker.append(0, "first", "paid");
            assertThat(interrupting).succeedsWithin(Duration.ofSeconds(60));

            CompletableFuture<String> second = waits.await("second", Duration.ofSeconds(60));
            broker.append(0, "second", "paid");
            assertThat(second).succeedsWithin(Duration.ofSeconds(60)).isEqualTo("paid");
            assertThat(feed.stats().running()).isTrue();
            assertThat(feed.stats().consumerErrors()).isZero();
            assertThat(log.events()).singleElement().satisfies(e ->
                    assertThat(e.getFormattedMessage()).contains("interrupted the feed's thread"));
        }
    }

    /** A record that poisons {@code call} (for POLL: the next poll throws; its record is ordinary), then a good one. */
    private static void poison(FakeBroker broker, Call call, Fault fault) {
        if (call == Call.POLL) {
            broker.failNextPoll(fault.make());
        }
        broker.append(0, "poison", "paid");
        broker.append(0, "good", "paid");
    }

    private static KafkaFeed.Builder<Key, String> feed(FakeBroker broker, KeyedWaits<Key, String> waits, Call call,
                                                       Fault fault) {
        return broker.feedOf(waits).key(record -> {
            boolean poisoned = isPoison(record);
            if (poisoned && call == Call.KEY) {
                throw FeedFaultMatrixTest.<RuntimeException>asUnchecked(fault.make());
            }
            return new Key(new String(record.key(), UTF_8), poisoned && call == Call.COMPLETE ? fault : null);
        }).value(record -> {
            if (isPoison(record) && call == Call.VALUE) {
                throw FeedFaultMatrixTest.<RuntimeException>asUnchecked(fault.make());
            }
            return new String(record.value(), UTF_8);
        });
    }

    private static boolean isPoison(ConsumerRecord<byte[], byte[]> record) {
        return new String(record.key(), UTF_8).equals("poison");
    }

    /** A real StackOverflowError, caught where it happened. */
    private static Throwable overflowTheStack() {
        try {
            return new IllegalStateException("no overflow at depth " + deep(Integer.MAX_VALUE));
        } catch (StackOverflowError e) {
            return e;
        }
    }

    private static int deep(int depth) {
        return depth == 0 ? 0 : 1 + deep(depth - 1);
    }

    /** A real OutOfMemoryError: an array the VM cannot allocate, which costs no memory to ask for. */
    private static Throwable exhaustTheHeap() {
        try {
            return new IllegalStateException("allocated " + new long[Integer.MAX_VALUE].length);
        } catch (OutOfMemoryError e) {
            return e;
        }
    }

    /** Throws a checked-or-not throwable as it is, for the functions' lambdas. */
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    private static <E extends Throwable> E asUnchecked(Throwable error) throws E {
        throw (E) error;
    }
}
