package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An error handler that rethrows the very exception it was given (UserCode U2): the failure is
 * logged, and every path of the core carries on as if the handler had returned. Before, the
 * handler's own "self-suppression" failure escaped into the core, leaving a claim held, a close
 * half done, an expiry without onExpiration and the other waits of a key unanswered.
 */
class RethrowingHandlerTest {

    private static final OperationErrorHandler RETHROWS =
            (purgatory, op, callback, error) -> {
                throw error instanceof RuntimeException r ? r : new RuntimeException(error);
            };

    private final ManualTimer timer = new ManualTimer();

    /** Throws from tryComplete until {@link #healthy}; counts its callbacks. */
    static final class Failing extends DelayedOperation {
        volatile boolean healthy;
        volatile boolean completable;
        final AtomicInteger onComplete = new AtomicInteger();
        final AtomicInteger onExpiration = new AtomicInteger();

        Failing() {
            super(100);
        }

        @Override
        protected boolean tryComplete() {
            if (!healthy) {
                throw new IllegalStateException("tryComplete failed");
            }
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
            if (!healthy) {
                throw new IllegalStateException("onComplete failed");
            }
        }

        @Override
        protected void onExpiration() {
            onExpiration.incrementAndGet();
        }
    }

    private DelayedOperationPurgatory<Failing> purgatory() {
        return DelayedOperationPurgatory.<Failing>builder("rethrowing").timer(timer).reaperEnabled(false)
                .errorHandler(RETHROWS).build();
    }

    @Test
    void checkAndComplete_handlerRethrowsATryCompleteFailure_theClaimIsGivenBackAndALaterCheckCompletes() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory");
             DelayedOperationPurgatory<Failing> p = purgatory()) {
            Failing op = new Failing();
            op.healthy = true;
            p.tryCompleteElseWatch(op, List.of("k"));
            op.healthy = false;

            assertThat(p.checkAndComplete("k")).isZero();
            op.healthy = true;
            op.completable = true;

            assertThat(p.checkAndComplete("k")).as("the claim was given back").isEqualTo(1);
            assertThat(op.onComplete).hasValue(1);
            assertThat(p.numDelayed()).isZero();
            assertThat(logs.events()).isNotEmpty();
        }
    }

    @Test
    void forceComplete_afterAFailedCheckWithARethrowingHandler_runsTheCallbackAndLeavesNothingPending() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory");
             DelayedOperationPurgatory<Failing> p = purgatory()) {
            Failing op = new Failing();
            op.healthy = true;
            p.tryCompleteElseWatch(op, List.of("k"));
            op.healthy = false;
            p.checkAndComplete("k");
            op.healthy = true;

            assertThat(op.forceComplete()).isTrue();

            assertThat(op.onComplete).as("its callback ran").hasValue(1);
            assertThat(p.numDelayed()).isZero();
            assertThat(logs.events()).as("the handler's failure logged").isNotEmpty();
        }
    }

    @Test
    void close_everyOperationsCallbacksFailAndTheHandlerRethrows_closeAnswersAllTenAndASecondCloseIsANoOp() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory")) {
            DelayedOperationPurgatory<Failing> p = purgatory();
            List<Failing> ops = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                Failing op = new Failing();
                op.healthy = true;
                p.tryCompleteElseWatch(op, List.of("k" + i));
                op.healthy = false;
                ops.add(op);
            }

            p.close();
            p.close();

            for (Failing op : ops) {
                assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
                assertThat(op.onComplete).hasValue(1);
                assertThat(op.onExpiration).as("onExpiration still runs after onComplete failed").hasValue(1);
            }
            assertThat(p.numDelayed()).isZero();
            assertThat(p.stats().callbackErrors()).isEqualTo(10);
            assertThat(logs.events()).as("each failure logged once").hasSize(10);
        }
    }

    @Test
    void expiry_onCompleteFailsAndTheHandlerRethrows_onExpirationStillRuns() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory");
             DelayedOperationPurgatory<Failing> p = purgatory()) {
            Failing op = new Failing();
            op.healthy = true;
            p.tryCompleteElseWatch(op, List.of("k"));
            op.healthy = false;

            timer.advanceClock(100);

            assertThat(op.onComplete).hasValue(1);
            assertThat(op.onExpiration).hasValue(1);
            assertThat(p.numDelayed()).isZero();
            assertThat(logs.events()).hasSize(1);
        }
    }

    @Test
    void keyedComplete_aPredicateFailsAndTheHandlerRethrows_theKeysOtherWaitsAreAnswered() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory");
             KeyedWaits<String, String> waits = KeyedWaits.builder("rethrowing-waits").timer(timer)
                     .errorHandler(RETHROWS).build()) {
            CompletableFuture<String> failing = waits.await("k", Duration.ofSeconds(1), v -> {
                throw new IllegalStateException("predicate failed");
            });
            CompletableFuture<String> other = waits.await("k", Duration.ofSeconds(1));
            CompletableFuture<String> third = waits.await("k", Duration.ofSeconds(1));

            assertThat(waits.complete("k", "v")).isEqualTo(2);

            assertThat(other).isCompletedWithValue("v");
            assertThat(third).isCompletedWithValue("v");
            assertThat(failing).isNotDone();
            assertThat(waits.pending()).isEqualTo(1);
            assertThat(logs.events()).hasSize(1);
        }
    }

    @Test
    void runtimeClose_everyPurgatorysCallbacksFailAndTheHandlerRethrows_closesThemAllAndStopsTheDriver() {
        try (LogCapture logs = new LogCapture("io.purgatory.DelayedOperationPurgatory")) {
            PurgatoryRuntime runtime = PurgatoryRuntime.builder("rethrowing-runtime").build();
            List<DelayedOperationPurgatory<Failing>> purgatories = new ArrayList<>();
            List<Failing> ops = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                DelayedOperationPurgatory<Failing> p = DelayedOperationPurgatory.<Failing>builder("p" + i)
                        .runtime(runtime).errorHandler(RETHROWS).build();
                Failing op = new Failing();
                op.healthy = true;
                p.tryCompleteElseWatch(op, List.of("k"));
                op.healthy = false;
                purgatories.add(p);
                ops.add(op);
            }

            runtime.close();

            for (int i = 0; i < 3; i++) {
                assertThat(purgatories.get(i).isClosed()).as("purgatory p%d closed", i).isTrue();
                assertThat(ops.get(i).onExpiration).hasValue(1);
            }
            ReliabilitySupport.awaitCondition("the driver thread gone",
                    () -> ReliabilitySupport.findThread("ExpirationReaper-rethrowing-runtime") == null);
            assertThat(logs.events()).as("one onComplete failure of each").hasSize(3);
        }
    }
}
