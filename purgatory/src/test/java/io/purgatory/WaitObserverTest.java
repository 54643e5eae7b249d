package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.EngineInternals;
import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The {@link WaitObserver} seam (Engine N6): each wait is started on the submitting thread and
 * ended exactly once, with the outcome its end had, on every terminal path; an observer that
 * throws changes nothing of the wait.
 */
class WaitObserverTest {

    /** Records what it is told; a handle is the index of the start. */
    static final class Recording implements WaitObserver {
        final List<WaitStart> starts = new ArrayList<>();
        final List<Thread> startThreads = new ArrayList<>();
        final List<String> ends = new ArrayList<>();
        final List<Integer> endedHandles = new ArrayList<>();

        @Override
        public synchronized Object started(WaitStart start) {
            starts.add(start);
            startThreads.add(Thread.currentThread());
            return starts.size() - 1;
        }

        @Override
        public synchronized void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            endedHandles.add((Integer) handle);
            ends.add(outcome + (failure == null ? "" : ":" + failure.getMessage()));
        }
    }

    private final ManualTimer timer = new ManualTimer();
    private final Recording observer = new Recording();

    private DelayedOperationPurgatory<MockOperation> purgatory(ClosePolicy policy) {
        return DelayedOperationPurgatory.<MockOperation>builder("observed").timer(timer).observer(observer)
                .closePolicy(policy).build();
    }

    @Test
    void operations_everyTerminalPath_eachWaitEndedOnceWithItsOutcome() {
        DelayedOperationPurgatory<MockOperation> p = purgatory(ClosePolicy.EXPIRE);
        MockOperation atOnce = new MockOperation(100);
        atOnce.completable = true;
        p.tryCompleteElseWatch(atOnce, List.of("a"));
        MockOperation checked = new MockOperation(100);
        p.tryCompleteElseWatch(checked, List.of("b", "c"));
        checked.completable = true;
        p.checkAndComplete("c");
        MockOperation expired = new MockOperation(100);
        p.tryCompleteElseWatch(expired, List.of("d"));
        timer.advanceClock(100);
        MockOperation cancelled = new MockOperation(100);
        p.tryCompleteElseWatch(cancelled, List.of("e"));
        p.cancelForKey("e");
        MockOperation closed = new MockOperation(100);
        p.tryCompleteElseWatch(closed, List.of("f"));

        p.close();

        assertThat(observer.ends).containsExactly("COMPLETED_AT_ONCE", "COMPLETED", "EXPIRED", "CANCELLED",
                "CLOSED");
        assertThat(observer.endedHandles).containsExactly(0, 1, 2, 3, 4);
        assertThat(observer.starts).extracting(WaitStart::keys).containsExactly(List.of("a"), List.of("b", "c"),
                List.of("d"), List.of("e"), List.of("f"));
        assertThat(observer.starts).allSatisfy(start -> {
            assertThat(start.purgatory()).isEqualTo("observed");
            assertThat(start.timeoutMs()).isEqualTo(100);
        });
        assertThat(observer.startThreads).containsOnly(Thread.currentThread());
    }

    @Test
    void observedOperation_onOneKey_itsOwnerKeepsTheListAndIsFoundWhileLinked() {
        DelayedOperationPurgatory<MockOperation> p = purgatory(ClosePolicy.EXPIRE);
        MockOperation op = new MockOperation(100);
        p.tryCompleteElseWatch(op, List.of("a"));

        assertThat(EngineInternals.isObserved(op)).as("(N6) an observed operation's owner is its WaitOwner")
                .isTrue();
        assertThat(EngineInternals.listKey(op)).as("(K3) linked on its one key's list itself").isEqualTo("a");
        assertThat(EngineInternals.ownerEngine(op)).isSameAs(p.engine());
        p.engine().checkInvariants();

        op.completable = true;
        assertThat(p.checkAndComplete("a")).isEqualTo(1);

        assertThat(EngineInternals.holdsNoWatchLink(op)).as("unlinked by the settle's booking").isTrue();
        assertThat(EngineInternals.isObserved(op)).isTrue();
        assertThat(p.watched()).isZero();
        assertThat(observer.ends).containsExactly("COMPLETED");
        p.engine().checkInvariants();
        p.close();
    }

    @Test
    void close_aCallbackOfItsSweepCancelsAnotherWait_thatWaitEndsCancelledNotClosed() {
        DelayedOperationPurgatory<ReliabilitySupport.HookOp> p = DelayedOperationPurgatory
                .<ReliabilitySupport.HookOp>builder("observed").timer(timer).observer(observer)
                .closePolicy(ClosePolicy.CANCEL).build();
        ReliabilitySupport.HookOp a = new ReliabilitySupport.HookOp(100);
        ReliabilitySupport.HookOp b = new ReliabilitySupport.HookOp(100);
        a.cancelHook = b::cancel; // whichever the sweep reaches first cancels the other itself
        b.cancelHook = a::cancel;
        p.tryCompleteElseWatch(a, List.of("a"));
        p.tryCompleteElseWatch(b, List.of("b"));

        p.close();

        assertThat(observer.ends).as("(O9) CLOSED only for the wait the close settled")
                .containsExactlyInAnyOrder("CLOSED", "CANCELLED");
        assertThat(a.cancels.get() + b.cancels.get()).isEqualTo(2);
    }

    @Test
    void observer_leavesAWaitUnobserved_noOwnerOfItsOwnAndNoEnd() {
        List<Object> ended = new ArrayList<>();
        WaitObserver declining = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                return null;
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                ended.add(handle);
            }
        };
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("declined")
                .timer(timer).observer(declining).build();
        MockOperation op = new MockOperation(100);

        p.tryCompleteElseWatch(op, List.of("a", "b"));

        assertThat(EngineInternals.isObserved(op)).as("(N6) only a wait given a handle has a WaitOwner").isFalse();
        assertThat(EngineInternals.ownerEngine(op)).isSameAs(p.engine());
        timer.advanceClock(100);
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(ended).isEmpty();
        p.close();
    }

    @Test
    void submission_failsAndIsUndone_itsWaitEndsFailed() {
        DelayedOperationPurgatory<MockOperation> p = purgatory(ClosePolicy.EXPIRE);
        AtomicInteger hashes = new AtomicInteger();
        Object failing = new Object() {
            @Override
            public int hashCode() {
                if (hashes.incrementAndGet() == 2) {
                    throw new IllegalStateException("fails while watched");
                }
                return 1;
            }
        };

        assertThatThrownBy(() -> p.tryCompleteElseWatch(new MockOperation(100), List.of("first", failing)))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(observer.ends).singleElement().asString().startsWith("FAILED:watch key at index 1");
        p.close();
        assertThat(observer.ends).hasSize(1);
    }

    @Test
    void keyedWaits_eventErrorTimeoutOutsideCancelAndClose_eachWaitEndedOnce() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("observed-waits").timer(timer).observer(observer)
                .build();
        CompletableFuture<String> answered = waits.await("a", Duration.ofMillis(100));
        CompletableFuture<String> failed = waits.await("b", Duration.ofMillis(100));
        CompletableFuture<String> timedOut = waits.await("c", Duration.ofMillis(100));
        CompletableFuture<String> cancelledFromOutside = waits.await("d", Duration.ofMillis(500));
        CompletableFuture<String> closed = waits.await("e", Duration.ofMillis(500));

        waits.complete("a", "v");
        waits.completeExceptionally("b", new IllegalStateException("payment refused"));
        timer.advanceClock(100);
        cancelledFromOutside.cancel(true);
        waits.close();

        assertThat(List.of(answered, failed, timedOut, cancelledFromOutside, closed))
                .allMatch(CompletableFuture::isDone);
        assertThat(observer.ends).containsExactly("COMPLETED", "FAILED:payment refused", "EXPIRED", "CANCELLED",
                "CLOSED");
    }

    @Test
    void observer_throwsOnStartAndOnEnd_theWaitsAreAnsweredAndTheFailuresLogged() {
        WaitObserver throwing = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                if (start.keys().contains("start-fails")) {
                    throw new IllegalStateException("started failed");
                }
                return start;
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                throw new AssertionError("ended failed");
            }
        };
        try (LogCapture log = new LogCapture(UserCode.LOGGER);
             DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("bad")
                     .timer(timer).observer(throwing).build()) {
            MockOperation a = new MockOperation(100);
            MockOperation b = new MockOperation(100);
            p.tryCompleteElseWatch(a, List.of("start-fails"));
            p.tryCompleteElseWatch(b, List.of("ends-fail"));

            timer.advanceClock(100);

            assertThat(a.onExpirationCalls).hasValue(1);
            assertThat(b.onExpirationCalls).hasValue(1);
            assertThat(p.numDelayed()).isZero();
            assertThat(log.events()).hasSize(2);
            p.engine().checkInvariants();
        }
    }

    @Test
    void waitStart_timeoutsOutsideTheTimersDelayRule_areTakenByIt() {
        DelayedOperationPurgatory<MockOperation> p = purgatory(ClosePolicy.EXPIRE);
        p.tryCompleteElseWatch(new MockOperation(-5), List.of("due-now"));
        p.tryCompleteElseWatch(new MockOperation(Long.MAX_VALUE), List.of("never"));
        p.close();

        assertThat(observer.starts).extracting(WaitStart::timeoutMs).containsExactly(0L, Timer.MAX_DELAY_MS);
        assertThat(new WaitStart("x", List.of("k"), Long.MIN_VALUE).timeoutMs()).isZero();
    }
}
