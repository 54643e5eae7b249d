package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Where the engine's smaller close, watch-list visits, late-event memory and one-clock-read
 * submission meet each other and the user's callbacks: promises 1, 3, 7 and 13 of
 * docs/reliability.md, each pair on one thread with a ManualTimer, no timing.
 */
class ChangedMechanismsMeetTest {

    private static final long BOUND_SECONDS = 30; // a failure bound, not a measurement
    private static final int MANY = 20; // above the thread's first copy array (16)

    private static DelayedOperationPurgatory<HookOp> purgatory(String name, ManualTimer timer) {
        return DelayedOperationPurgatory.<HookOp>builder(name).timer(timer).reaperEnabled(false).build();
    }

    private static List<HookOp> watch(DelayedOperationPurgatory<HookOp> purgatory, String key, int n) {
        List<HookOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HookOp op = new HookOp(60_000);
            assertThat(purgatory.tryCompleteElseWatch(op, List.of(key))).isFalse();
            ops.add(op);
        }
        return ops;
    }

    /*
     * cancelForKey is now a visit: an onCancel that cancels the same key and another key again,
     * nested on the same thread, visits with an array of its own. Each operation is cancelled
     * once, returned by exactly one of the calls, and nothing stays watched.
     */
    @Test
    void cancelForKey_anOnCancelCancelsTheSameAndAnotherKeyNested_eachCancelledOnceAndReturnedOnce() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<HookOp> purgatory = purgatory("nested-cancel", timer)) {
            List<HookOp> onK = watch(purgatory, "k", MANY);
            List<HookOp> onJ = watch(purgatory, "j", MANY);
            List<HookOp> nestedReturned = new ArrayList<>();
            onK.get(0).cancelHook = () -> {
                nestedReturned.addAll(purgatory.cancelForKey("k"));
                nestedReturned.addAll(purgatory.cancelForKey("j"));
            };

            List<HookOp> returned = new ArrayList<>(purgatory.cancelForKey("k"));
            returned.addAll(nestedReturned);

            Set<HookOp> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            returned.forEach(op -> assertThat(seen.add(op)).as("returned twice: %s", op).isTrue());
            assertThat(returned).hasSize(2 * MANY);
            for (HookOp op : onK) {
                assertThat(op.cancels.get()).isEqualTo(1);
            }
            for (HookOp op : onJ) {
                assertThat(op.cancels.get()).isEqualTo(1);
            }
            assertThat(purgatory.watched()).isZero();
            assertThat(timer.size()).isZero();
        } finally {
            timer.close();
        }
    }

    /*
     * A cancelForKey whose onCancels throw a RuntimeException and an Error: the failures are the
     * user's (contained, handed to the handler), every other operation of the key is cancelled
     * still, and the call returns them all.
     */
    @Test
    void cancelForKey_onCancelsThrowRuntimeExceptionAndError_allCancelledAndReturned() {
        ManualTimer timer = new ManualTimer();
        AtomicInteger handled = new AtomicInteger();
        try (LogCapture logs = new LogCapture(DelayedOperationPurgatory.class);
             DelayedOperationPurgatory<HookOp> purgatory = DelayedOperationPurgatory.<HookOp>builder("throwing-cancel")
                     .timer(timer).reaperEnabled(false)
                     .errorHandler((name, op, callback, error) -> handled.incrementAndGet())
                     .build()) {
            List<HookOp> ops = watch(purgatory, "k", 5);
            ops.get(1).cancelHook = () -> {
                throw new IllegalStateException("cancel fails");
            };
            ops.get(3).cancelHook = () -> {
                throw new AssertionError("cancel errs");
            };

            assertThat(purgatory.cancelForKey("k")).hasSize(5);

            ops.forEach(op -> assertThat(op.cancels.get()).isEqualTo(1));
            assertThat(handled.get()).isEqualTo(2);
            assertThat(purgatory.watched()).isZero();
            assertThat(logs.events()).isNotNull();
        } finally {
            timer.close();
        }
    }

    /*
     * A tryComplete that checks another key on the same thread while the outer check holds the
     * thread's copy array: both keys' operations are each completed once, and a later check on
     * the same thread (the array given back) still reaches every operation of its key.
     */
    @Test
    void checkAndComplete_aTryChecksAnotherKeyNested_everyOperationOfBothKeysCompletedOnce() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<HookOp> purgatory = purgatory("nested-check", timer)) {
            List<HookOp> onK = watch(purgatory, "k", MANY);
            List<HookOp> onJ = watch(purgatory, "j", 3);
            AtomicInteger nested = new AtomicInteger();
            onK.get(0).tryHook = () -> {
                if (nested.getAndIncrement() == 0) {
                    onJ.forEach(op -> op.completable = true);
                    nested.addAndGet(100 * purgatory.checkAndComplete("j"));
                }
            };
            onK.forEach(op -> op.completable = true);

            assertThat(purgatory.checkAndComplete("k")).isEqualTo(MANY);

            assertThat(nested.get()).isEqualTo(301);
            onK.forEach(op -> assertThat(op.completes.get()).isEqualTo(1));
            onJ.forEach(op -> assertThat(op.completes.get()).isEqualTo(1));
            List<HookOp> later = watch(purgatory, "k", 2 * MANY);
            later.forEach(op -> op.completable = true);
            assertThat(purgatory.checkAndComplete("k")).isEqualTo(2 * MANY);
            assertThat(purgatory.watched()).isZero();
        } finally {
            timer.close();
        }
    }

    /*
     * A runtime's close whose first member's close settles an operation whose onComplete closes
     * the runtime again, on the same thread: the nested close waits for nothing and redoes the
     * whole close; every operation of both purgatories is answered once and both are closed.
     */
    @Test
    void runtimeClose_anOnCompleteClosesTheRuntimeDuringItsFirstClose_everyOperationAnsweredOnce() {
        ManualTimer timer = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("nested-runtime-close").timer(timer).build();
        DelayedOperationPurgatory<HookOp> first = DelayedOperationPurgatory.<HookOp>builder("first")
                .runtime(runtime).build();
        DelayedOperationPurgatory<HookOp> second = DelayedOperationPurgatory.<HookOp>builder("second")
                .runtime(runtime).build();
        List<HookOp> ops = new ArrayList<>(watch(first, "k", 5));
        ops.addAll(watch(second, "k", 5));
        ops.get(0).completeHook = runtime::close;

        runtime.close();

        assertThat(first.isClosed()).isTrue();
        assertThat(second.isClosed()).isTrue();
        assertThat(runtime.isClosed()).isTrue();
        ops.forEach(op -> assertThat(List.of(op.completes.get(), op.expirations.get(), op.cancels.get()))
                .as("onComplete, onExpiration, onCancel of %s (the close expires)", op).containsExactly(1, 1, 0));
        assertThat(first.watched() + second.watched()).isZero();
        timer.close();
    }

    /*
     * Keyed waits closed by a dependent of the first future that complete(key) answers, on the
     * completing thread: every other wait is answered (by the event or by the close), the count
     * is of those the event answered, and nothing stays pending.
     */
    @Test
    void complete_aDependentOfTheFirstAnsweredWaitClosesTheWaits_everyWaitAnsweredAndNonePending() {
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("close-in-dependent").timer(timer).build();
        try {
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < MANY; i++) {
                futures.add(waits.await("k", Duration.ofMinutes(1)));
            }
            CompletableFuture<String> closes = futures.get(0).whenComplete((v, e) -> waits.close());

            int answered = waits.complete("k", "v");

            assertThat(closes).isDone();
            assertThat(futures).allMatch(CompletableFuture::isDone);
            assertThat(futures.stream().filter(f -> !f.isCompletedExceptionally()).count()).isEqualTo(answered);
            assertThat(waits.pending()).isZero();
            assertThat(waits.retainedEvents()).isZero();
        } finally {
            waits.close();
            timer.close();
        }
    }

    /*
     * Keyed waits with late-event memory: a wait that timed out leaves its end in the memory; an
     * onExpiration-time dependent closes the waits from the timer's thread. The memory is emptied
     * by the close, nothing stays pending, and the late event after the close answers nothing.
     */
    @Test
    void close_fromADependentOfATimedOutWaitWithLateEventMemory_emptiesTheMemoryAndNothingPending() {
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("late-close").timer(timer)
                .lateEvents(Duration.ofMinutes(1), 100).build();
        try {
            CompletableFuture<String> timesOut = waits.await("k", Duration.ofMillis(10));
            CompletableFuture<String> other = waits.await("j", Duration.ofMinutes(1));
            CompletableFuture<String> closes = timesOut.whenComplete((v, e) -> waits.close());

            timer.advanceClock(20);

            assertThat(closes).isDone();
            assertThat(timesOut).isCompletedExceptionally();
            assertThat(other).isDone();
            assertThat(waits.pending()).isZero();
            assertThat(waits.retainedEvents()).isZero();
            assertThat(waits.complete("k", "late")).isZero();
            assertThat(timer.size()).isZero();
        } finally {
            waits.close();
            timer.close();
        }
    }

    /*
     * A shared runtime's close closes keyed waits through their engine: the waits' early events
     * and remembered ends are dropped with it (engineClosed), their windows taken off the timer,
     * and a wait after the close fails its future instead of throwing.
     */
    @Test
    void runtimeClose_keyedWaitsWithEarlyEventsAndEnds_dropsThemAndTakesTheirWindowsOffTheTimer() {
        ManualTimer timer = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("drops-events").timer(timer).build();
        KeyedWaits<String, String> waits = KeyedWaits.builder("events-on-runtime").runtime(runtime)
                .retainEvents(Duration.ofMinutes(1), 100).lateEvents(Duration.ofMinutes(1), 100).build();
        CompletableFuture<String> cancelled = waits.await("ended", Duration.ofMinutes(1));
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(waits.complete("early", "v")).isZero();
        assertThat(waits.retainedEvents()).isEqualTo(1);
        assertThat(timer.size()).isEqualTo(2);

        runtime.close();

        assertThat(waits.retainedEvents()).isZero();
        assertThat(timer.size()).as("windows left on the timer").isZero();
        CompletableFuture<String> after = waits.await("early", Duration.ofMinutes(1));
        assertThat(after).isCompletedExceptionally();
        assertThat(waits.complete("early", "again")).isZero();
        assertThat(waits.pending()).isZero();
        timer.close();
    }

    /*
     * Tenants bound on keyed waits, each wait ended a different way (event, timeout, cancel of its
     * future, completing its future from outside, close): every tenant's slot comes back, so a
     * new wait of the same tenant is admitted up to the bound again before the close.
     */
    @Test
    void await_tenantBoundAndEachWayAWaitEnds_everySlotComesBack() {
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("tenant-ends").timer(timer)
                .tenants((String key) -> "t", 4).lateEvents(Duration.ofMinutes(1), 100).build();
        try {
            CompletableFuture<String> byEvent = waits.await("a", Duration.ofMinutes(1));
            CompletableFuture<String> byTimeout = waits.await("b", Duration.ofMillis(5));
            CompletableFuture<String> byCancel = waits.await("c", Duration.ofMinutes(1));
            CompletableFuture<String> byOutside = waits.await("d", Duration.ofMinutes(1));
            assertThat(waits.await("e", Duration.ofMinutes(1))).as("the bound holds").isCompletedExceptionally();

            assertThat(waits.complete("a", "v")).isEqualTo(1);
            timer.advanceClock(10);
            assertThat(byCancel.cancel(false)).isTrue();
            assertThat(byOutside.complete("outside")).isTrue();

            assertThat(List.of(byEvent, byTimeout, byCancel, byOutside)).allMatch(CompletableFuture::isDone);
            assertThat(waits.pending()).isZero();
            List<CompletableFuture<String>> again = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                again.add(waits.await("again-" + i, Duration.ofMinutes(1)));
            }
            assertThat(again).noneMatch(CompletableFuture::isDone);
            waits.close();
            assertThat(again).allMatch(CompletableFuture::isDone);
            assertThat(waits.pending()).isZero();
        } finally {
            waits.close();
            timer.close();
        }
    }

    /*
     * A user thread's first close waits for an operation whose try holds its claim on another
     * thread; that try closes the purgatory again (a later close, from code the library called:
     * it waits for nothing and redoes the whole close). The first close returns once the try
     * ended and the operation's callbacks ran there, once each, without spending its bound; the
     * check that ran the try reports no completion of its own.
     */
    @Test
    void close_aTryOnAnotherThreadClosesAgainWhileTheFirstCloseWaitsForIt_bothReturnCallbacksOnce()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<HookOp> purgatory = purgatory("close-in-try", timer);
        HookOp op = new HookOp(60_000);
        assertThat(purgatory.tryCompleteElseWatch(op, List.of("k"))).isFalse();
        CountDownLatch inTry = new CountDownLatch(1);
        AtomicInteger nestedCloses = new AtomicInteger();
        op.tryHook = () -> {
            inTry.countDown();
            for (long i = 0; !purgatory.isClosed() && i < 30_000_000L; i++) {
                Thread.onSpinWait(); // until the first close marked (bounded)
            }
            purgatory.close();
            nestedCloses.incrementAndGet();
        };
        CompletableFuture<Integer> check = CompletableFuture.supplyAsync(() -> purgatory.checkAndComplete("k"));
        try (LogCapture waits = new LogCapture("io.purgatory.internal.CloseOnce")) {
            assertThat(inTry.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

            purgatory.close();

            assertThat(check.get(BOUND_SECONDS, TimeUnit.SECONDS)).isZero();
            assertThat(waits.events()).as("a close that spent its bound").isEmpty();
        }
        assertThat(nestedCloses.get()).isEqualTo(1);
        assertThat(List.of(op.completes.get(), op.expirations.get(), op.cancels.get())).containsExactly(1, 1, 0);
        assertThat(purgatory.watched()).isZero();
        timer.close();
    }

    /*
     * One clock read per submission: the timeout counts from the watch time, read before the
     * second try. A second try that takes longer than the delay (here: far beyond the wheel's
     * span) puts an entry whose deadline is already behind the timer's time: it expires at the
     * timer's next step, not a wheel's turn later, and not before its delay after the watch time.
     */
    @Test
    void tryCompleteElseWatch_theSecondTryOutlastsTheDelay_expiresAtTheTimersNextStep() {
        ManualTimer timer = new ManualTimer();
        try (DelayedOperationPurgatory<HookOp> purgatory = purgatory("late-schedule", timer)) {
            HookOp early = new HookOp(10);
            HookOp late = new HookOp(10);
            AtomicInteger tries = new AtomicInteger();
            late.tryHook = () -> {
                if (tries.incrementAndGet() == 2) { // the second try, after the watch time was read
                    timer.advanceClock(5); // not yet its delay: nothing may expire
                    assertThat(late.isCompleted()).isFalse();
                    timer.advanceClock(100_000);
                }
            };
            assertThat(purgatory.tryCompleteElseWatch(early, List.of("k"))).isFalse();

            assertThat(purgatory.tryCompleteElseWatch(late, List.of("k"))).isFalse();
            assertThat(early.expirations.get()).as("expired during the other's second try").isEqualTo(1);
            timer.advanceClock(1);

            assertThat(late.expirations.get()).as("expired at the next step").isEqualTo(1);
            assertThat(purgatory.watched()).isZero();
        } finally {
            timer.close();
        }
    }

    /*
     * A rethrowing error handler under cancelForKey's visit: the onCancel failures it rethrows (a
     * RuntimeException and an Error) are contained as the user's, so the visit neither stops nor
     * rethrows: every operation is cancelled once and returned.
     */
    @Test
    void cancelForKey_aRethrowingHandlerAndThrowingOnCancels_allCancelledAndReturned() {
        ManualTimer timer = new ManualTimer();
        try (LogCapture logs = new LogCapture(DelayedOperationPurgatory.class);
             DelayedOperationPurgatory<HookOp> purgatory = DelayedOperationPurgatory
                     .<HookOp>builder("rethrowing-cancel").timer(timer).reaperEnabled(false)
                     .errorHandler((name, op, callback, error) -> {
                         if (error instanceof Error e) {
                             throw e;
                         }
                         throw (RuntimeException) error;
                     })
                     .build()) {
            List<HookOp> ops = watch(purgatory, "k", 5);
            ops.get(0).cancelHook = () -> {
                throw new IllegalStateException("cancel fails");
            };
            ops.get(4).cancelHook = () -> {
                throw new AssertionError("cancel errs");
            };

            assertThat(purgatory.cancelForKey("k")).hasSize(5);

            ops.forEach(op -> assertThat(op.cancels.get()).isEqualTo(1));
            assertThat(purgatory.watched()).isZero();
            assertThat(logs.events()).isNotEmpty();
        } finally {
            timer.close();
        }
    }
}
