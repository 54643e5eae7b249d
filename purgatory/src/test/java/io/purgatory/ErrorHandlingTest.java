package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.OperationErrorHandler.Callback;
import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Callbacks that throw go to the error handler and the counters; nothing else is disturbed. */
class ErrorHandlingTest {

    /** One report to the error handler. */
    record Report(String purgatory, DelayedOperation operation, Callback callback, Throwable error) {
    }

    private final ManualTimer timer = new ManualTimer();
    private final ConcurrentLinkedQueue<Report> reports = new ConcurrentLinkedQueue<>();
    private final DelayedOperationPurgatory<MockOperation> purgatory =
            DelayedOperationPurgatory.<MockOperation>builder("errors").timer(timer).reaperEnabled(false)
                    .errorHandler((name, op, callback, error) -> reports.add(new Report(name, op, callback, error)))
                    .build();

    @AfterEach
    void tearDown() {
        purgatory.engine().checkInvariants();
        purgatory.close();
        timer.close();
    }

    @Test
    void callbackOrdinal_eachCallback_isTheEngineCodeOfThatCallback() {
        assertThat(Callback.values()).containsExactly(Callback.TRY_COMPLETE, Callback.ON_COMPLETE,
                Callback.ON_EXPIRATION, Callback.ON_CANCEL);
        assertThat(Callback.TRY_COMPLETE.ordinal()).isEqualTo(UserCode.TRY_COMPLETE);
        assertThat(Callback.ON_COMPLETE.ordinal()).isEqualTo(UserCode.ON_COMPLETE);
        assertThat(Callback.ON_EXPIRATION.ordinal()).isEqualTo(UserCode.ON_EXPIRATION);
        assertThat(Callback.ON_CANCEL.ordinal()).isEqualTo(UserCode.ON_CANCEL);
    }

    @Test
    void tryComplete_throwsDuringCheckAndComplete_isReportedAndOperationStaysPending() {
        IllegalStateException failure = new IllegalStateException("tryComplete failed");
        FailingOperation op = new FailingOperation(100);
        purgatory.tryCompleteElseWatch(op, List.of("k"));
        op.tryCompleteFailure = failure;

        assertThat(purgatory.checkAndComplete("k")).isZero();

        assertThat(reports).containsExactly(new Report("errors", op, Callback.TRY_COMPLETE, failure));
        assertThat(purgatory.stats().callbackErrors()).isEqualTo(1);
        assertThat(op.isCompleted()).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        op.tryCompleteFailure = null;
        op.completable = true;
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);
        assertThat(op.callbacks()).containsExactly("onComplete");
    }

    @Test
    void checkAndComplete_oneOperationThrows_continuesWithTheKeysOtherOperations() {
        FailingOperation failing = new FailingOperation(100);
        MockOperation second = new MockOperation(100);
        MockOperation third = new MockOperation(100);
        purgatory.tryCompleteElseWatch(failing, List.of("k"));
        purgatory.tryCompleteElseWatch(second, List.of("k"));
        purgatory.tryCompleteElseWatch(third, List.of("k"));
        failing.tryCompleteFailure = new IllegalStateException("first on the list fails");
        second.completable = true;
        third.completable = true;

        assertThat(purgatory.checkAndComplete("k")).isEqualTo(2);

        assertThat(second.callbacks()).containsExactly("onComplete");
        assertThat(third.callbacks()).containsExactly("onComplete");
        assertThat(reports).extracting(Report::operation).containsExactly(failing);
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
    }

    @Test
    void tryCompleteElseWatch_secondTryThrows_operationIsOnTheTimerAndExpires() {
        IllegalStateException failure = new IllegalStateException("second try failed");
        MockOperation op = new MockOperation(100) {
            @Override
            public boolean tryComplete() {
                if (tryCompleteCalls.incrementAndGet() == 2) {
                    throw failure;
                }
                return false;
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(reports).containsExactly(new Report("errors", op, Callback.TRY_COMPLETE, failure));
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(purgatory.watched()).isEqualTo(1);
        assertThat(timer.size()).as("Kafka 4.1 never adds it to the timer").isEqualTo(1);
        timer.advanceClock(100);
        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void tryCompleteElseWatch_firstTryThrows_countsAsNotYetAndWatchesTheOperation() {
        MockOperation op = new MockOperation(100) {
            @Override
            public boolean tryComplete() {
                if (tryCompleteCalls.incrementAndGet() == 1) {
                    throw new IllegalStateException("first try failed");
                }
                return false;
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();

        assertThat(op.tryCompleteCalls).hasValue(2);
        assertThat(purgatory.numDelayed()).isEqualTo(1);
        assertThat(timer.size()).isEqualTo(1);
        assertThat(reports).extracting(Report::callback).containsExactly(Callback.TRY_COMPLETE);
    }

    @Test
    void tryComplete_completesThenThrows_completesOnceAndReportsTheError() {
        MockOperation op = new MockOperation(100) {
            @Override
            public boolean tryComplete() {
                forceComplete();
                throw new IllegalStateException("after completing");
            }
        };

        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isTrue();

        assertThat(op.callbacks()).containsExactly("onComplete");
        assertThat(op.callbackUnderLockOrDuringTry).isFalse();
        assertThat(reports).extracting(Report::callback).containsExactly(Callback.TRY_COMPLETE);
        assertThat(purgatory.watched()).isZero();
        assertThat(timer.size()).isZero();
    }

    @Test
    void onComplete_throwsOnExpiry_onExpirationStillRuns() {
        IllegalStateException failure = new IllegalStateException("onComplete failed");
        FailingOperation op = new FailingOperation(100);
        op.onCompleteFailure = failure;
        purgatory.tryCompleteElseWatch(op, List.of("a", "b"));

        timer.advanceClock(100);

        assertThat(op.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(op.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(reports).containsExactly(new Report("errors", op, Callback.ON_COMPLETE, failure));
        assertThat(purgatory.stats().expired()).isEqualTo(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    void onComplete_throwsOnForceComplete_forceCompleteReturnsTrueAndTheErrorIsReported() {
        FailingOperation op = new FailingOperation(100);
        op.onCompleteFailure = new IllegalStateException("onComplete failed");
        purgatory.tryCompleteElseWatch(op, List.of("k"));

        assertThat(op.forceComplete()).isTrue();

        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(reports).extracting(Report::callback).containsExactly(Callback.ON_COMPLETE);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void onExpirationAndOnCancel_throw_areReportedAndCountedByCallback() {
        FailingOperation expiring = new FailingOperation(100);
        expiring.onExpirationFailure = new IllegalStateException("onExpiration failed");
        FailingOperation cancelled = new FailingOperation(100);
        cancelled.onCancelFailure = new IllegalStateException("onCancel failed");
        purgatory.tryCompleteElseWatch(expiring, List.of("a"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("b", "c"));

        assertThat(cancelled.cancel()).isTrue();
        timer.advanceClock(100);

        assertThat(reports).extracting(Report::operation, Report::callback).containsExactly(
                org.assertj.core.groups.Tuple.tuple(cancelled, Callback.ON_CANCEL),
                org.assertj.core.groups.Tuple.tuple(expiring, Callback.ON_EXPIRATION));
        assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(expiring.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(purgatory.stats().callbackErrors()).isEqualTo(2);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.watchedKeys()).isZero();
    }

    @Test
    void errorHandler_throws_itsFailureIsLoggedAndThePurgatoryCarriesOn() {
        IllegalStateException original = new IllegalStateException("onComplete failed");
        IllegalArgumentException handlerFailure = new IllegalArgumentException("handler failed");
        try (LogCapture log = new LogCapture(DelayedOperationPurgatory.class);
             DelayedOperationPurgatory<MockOperation> p =
                     DelayedOperationPurgatory.<MockOperation>builder("bad-handler")
                     .timer(timer).reaperEnabled(false)
                     .errorHandler((name, op, callback, error) -> {
                         throw handlerFailure;
                     }).build()) {
            FailingOperation op = new FailingOperation(100);
            op.onCompleteFailure = original;
            MockOperation next = new MockOperation(100);
            p.tryCompleteElseWatch(op, List.of("k"));
            p.tryCompleteElseWatch(next, List.of("k"));
            op.completable = true;
            next.completable = true;

            assertThat(p.checkAndComplete("k")).isEqualTo(2);

            assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
            assertThat(next.callbacks()).containsExactly("onComplete");
            assertThat(p.stats().callbackErrors()).isEqualTo(1);
            assertThat(p.watched()).isZero();
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'bad-handler'", "onComplete");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("handler failed");
                assertThat(e.getThrowableProxy().getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s.getMessage()).isEqualTo("onComplete failed"));
            });
            p.engine().checkInvariants();
        }
    }

    @Test
    void defaultHandler_callbackThrows_logsAnErrorNamingPurgatoryAndCallback() {
        try (LogCapture log = new LogCapture(DelayedOperationPurgatory.class);
             DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("logged")
                     .timer(timer).reaperEnabled(false).build()) {
            FailingOperation op = new FailingOperation(100);
            op.onExpirationFailure = new IllegalStateException("onExpiration failed");
            p.tryCompleteElseWatch(op, List.of("k"));

            timer.advanceClock(100);

            List<ILoggingEvent> events = log.events();
            assertThat(events).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'logged'", "onExpiration");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("onExpiration failed");
            });
            assertThat(p.stats().callbackErrors()).isEqualTo(1);
        }
    }

    @Test
    void expirationCallbacks_throwOnTheExpirationThread_theThreadSurvivesAndKeepsExpiring() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "single-expiration"));
        CountDownLatch allReported = new CountDownLatch(4);
        List<Thread> expiredOn = new ArrayList<>();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("survives")
                .expirationExecutor(executor).errorHandler((name, op, callback, error) -> allReported.countDown())
                .build()) {
            for (int i = 0; i < 2; i++) {
                p.tryCompleteElseWatch(new MockOperation(1) {
                    @Override
                    public void onComplete() {
                        throw new IllegalStateException("onComplete failed");
                    }

                    @Override
                    public void onExpiration() {
                        synchronized (expiredOn) {
                            expiredOn.add(Thread.currentThread());
                        }
                        throw new IllegalStateException("onExpiration failed");
                    }
                }, List.of("k" + i));
            }

            TestThreads.await(allReported, "four callback failures");

            assertThat(p.stats().callbackErrors()).isEqualTo(4);
            assertThat(p.stats().expired()).isEqualTo(2);
        } finally {
            executor.shutdownNow();
        }
        synchronized (expiredOn) {
            assertThat(expiredOn).hasSize(2);
            assertThat(expiredOn.get(1)).as("no exception escaped to kill the pool's thread")
                    .isSameAs(expiredOn.get(0));
        }
    }

    /**
     * Errors, not only exceptions, from every callback on every path: a submission's tries, a
     * check's try, a completion, an expiry and a cancel. Each is reported once, the operation
     * settles exactly once, and the lists, gauges and timer stay consistent (tearDown checks).
     */
    @Test
    void everyCallback_throwsAnError_isReportedAndTheOperationSettlesOnce() {
        StackOverflowError inSubmission = new StackOverflowError("tryComplete, submitting");
        ErrorOperation submitted = new ErrorOperation(100, inSubmission);
        assertThat(purgatory.tryCompleteElseWatch(submitted, List.of("k"))).isFalse();
        assertThat(submitted.isCompleted()).as("a throwing try is a 'not yet'").isFalse();

        OutOfMemoryError inCheck = new OutOfMemoryError("tryComplete, checking");
        submitted.tryError = inCheck;
        assertThat(purgatory.checkAndComplete("k")).isZero();
        submitted.tryError = null;
        OutOfMemoryError inOnComplete = new OutOfMemoryError("onComplete");
        submitted.callbackError = inOnComplete;
        submitted.completable = true;
        assertThat(purgatory.checkAndComplete("k")).isEqualTo(1);

        ErrorOperation expiring = new ErrorOperation(100, null);
        ErrorOperation cancelled = new ErrorOperation(100, null);
        purgatory.tryCompleteElseWatch(expiring, List.of("k", "k2"));
        purgatory.tryCompleteElseWatch(cancelled, List.of("k"));
        LinkageError inExpiry = new LinkageError("onComplete and onExpiration");
        AssertionError inCancel = new AssertionError("onCancel");
        expiring.callbackError = inExpiry;
        cancelled.callbackError = inCancel;
        assertThat(cancelled.cancel()).isTrue();
        timer.advanceClock(100);

        assertThat(reports).extracting(Report::error).containsExactly(inSubmission, inSubmission, inCheck,
                inOnComplete, inCancel, inExpiry, inExpiry);
        assertThat(submitted.callbacks()).containsExactly("onComplete");
        assertThat(expiring.callbacks()).containsExactly("onComplete", "onExpiration");
        assertThat(cancelled.callbacks()).containsExactly("onCancel");
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.stats().callbackErrors()).isEqualTo(7);
    }

    /** Throws {@code tryError} from tryComplete, and {@code callbackError} from each callback after counting it. */
    static final class ErrorOperation extends MockOperation {
        volatile Error tryError;
        volatile Error callbackError;

        ErrorOperation(long delayMs, Error tryError) {
            super(delayMs);
            this.tryError = tryError;
        }

        @Override
        public boolean tryComplete() {
            Error e = tryError;
            if (e != null) {
                throw e;
            }
            return super.tryComplete();
        }

        @Override
        public void onComplete() {
            super.onComplete();
            throwIfSet();
        }

        @Override
        public void onExpiration() {
            super.onExpiration();
            throwIfSet();
        }

        @Override
        public void onCancel() {
            super.onCancel();
            throwIfSet();
        }

        private void throwIfSet() {
            Error e = callbackError;
            if (e != null) {
                throw e;
            }
        }
    }

    static class FailingOperation extends MockOperation {
        volatile RuntimeException tryCompleteFailure;
        volatile RuntimeException onCompleteFailure;
        volatile RuntimeException onExpirationFailure;
        volatile RuntimeException onCancelFailure;

        FailingOperation(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            RuntimeException f = tryCompleteFailure;
            if (f != null) {
                throw f;
            }
            return super.tryComplete();
        }

        @Override
        public void onComplete() {
            super.onComplete();
            RuntimeException f = onCompleteFailure;
            if (f != null) {
                throw f;
            }
        }

        @Override
        public void onExpiration() {
            super.onExpiration();
            RuntimeException f = onExpirationFailure;
            if (f != null) {
                throw f;
            }
        }

        @Override
        public void onCancel() {
            super.onCancel();
            RuntimeException f = onCancelFailure;
            if (f != null) {
                throw f;
            }
        }
    }
}
