package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.Clock;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Where and how long a submission waits for a back-pressured timer: never on the timer's own
 * threads, never past a close, and an interrupt ends it without losing the operation. The timer
 * falls behind at once: its clock jumps an hour while the expiries it hands off wait in a queue,
 * and the bound is ten minutes, so a wait that should not happen outlasts every failure bound.
 */
class BackPressureWaitTest {

    private static final long GENEROUS_SECONDS = 30;
    private static final Duration BOUND = Duration.ofMinutes(10);
    private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);

    /** The system clock plus an offset a test moves forward: a clock an own timer accepts. */
    private static final class JumpingClock implements Clock {
        private final AtomicLong offsetNanos = new AtomicLong();

        @Override
        public long nanoTime() {
            return System.nanoTime() + offsetNanos.get();
        }

        void jump(Duration by) {
            offsetNanos.addAndGet(by.toNanos());
        }
    }

    @Test
    void onExpiration_submitsOnItsOwnBackPressuredPurgatory_doesNotWait() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        AtomicReference<DelayedOperationPurgatory<MockOperation>> self = new AtomicReference<>();
        MockOperation more = new MockOperation(DAY_MS);
        AtomicBoolean submittedMore = new AtomicBoolean();
        MockOperation late = new MockOperation(1) {
            @Override
            public void onExpiration() {
                super.onExpiration();
                self.get().tryCompleteElseWatch(more, List.of("more"));
                submittedMore.set(true);
            }
        };
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("cb")
                .clock(clock).expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            self.set(p);
            fallBehind(p, late, clock, handedOff);

            Thread expirer = runAll(handedOff, "expirer");
            expirer.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            boolean ended = !expirer.isAlive();
            expirer.interrupt();

            assertThat(ended).as("the expiry's callback submitted without waiting").isTrue();
            assertThat(submittedMore).isTrue();
            assertThat(timer(p).backPressureWaits()).isZero();
            assertThat(late.onExpirationCalls).hasValue(1);
            assertThat(p.watched()).isEqualTo(1); // `more`, watched
        }
    }

    @Test
    void onExpiration_executorRejectsSoTheReaperRunsIt_submitsWithoutWaiting() throws Exception {
        JumpingClock clock = new JumpingClock();
        AtomicReference<DelayedOperationPurgatory<MockOperation>> self = new AtomicReference<>();
        MockOperation more = new MockOperation(DAY_MS);
        CountDownLatch submittedMore = new CountDownLatch(1);
        AtomicLong lagSeen = new AtomicLong();
        MockOperation late = new MockOperation(1) {
            @Override
            public void onExpiration() {
                super.onExpiration();
                lagSeen.set(timer(self.get()).lagMs());
                self.get().tryCompleteElseWatch(more, List.of("more"));
                submittedMore.countDown();
            }
        };
        Executor rejecting = command -> {
            throw new RejectedExecutionException("full");
        };
        try (LogCapture timerLog = new LogCapture(Timer.class);
             DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("rej")
                     .clock(clock).expirationExecutor(rejecting).backPressure(BOUND).build()) {
            self.set(p);
            p.tryCompleteElseWatch(late, List.of("late"));
            clock.jump(Duration.ofHours(1)); // due an hour ago: the reaper runs it an hour late, itself

            assertThat(submittedMore.await(GENEROUS_SECONDS, TimeUnit.SECONDS))
                    .as("the reaper submitted without waiting").isTrue();
            assertThat(lagSeen.get()).as("an add from elsewhere would have waited").isGreaterThan(BOUND.toMillis());
            assertThat(timer(p).backPressureWaits()).isZero();
            assertThat(late.onExpirationCalls).hasValue(1);
            assertThat(timerLog.events()).hasSize(1); // the refusal, reported once
        }
    }

    @Test
    void tryCompleteElseWatch_interruptedWhileWaiting_keepsTheInterruptAndTheOperation() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        AtomicBoolean interruptKept = new AtomicBoolean();
        AtomicBoolean watched = new AtomicBoolean(true);
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("intr")
                .clock(clock).expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            fallBehind(p, new MockOperation(1), clock, handedOff);
            Thread submitter = new Thread(() -> {
                watched.set(!p.tryCompleteElseWatch(op, List.of("k")));
                interruptKept.set(Thread.currentThread().isInterrupted());
            }, "submitter");
            submitter.start();
            awaitParkedByBackPressure(submitter);

            submitter.interrupt();
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));

            assertThat(submitter.isAlive()).as("the interrupt ended the wait").isFalse();
            assertThat(interruptKept).as("the interrupt is left set").isTrue();
            assertThat(watched).isTrue();
            assertThat(timer(p).backPressureWaits()).isEqualTo(1);
            handedOff.forEach(Runnable::run); // the late operation expires
            assertThat(p.watched()).isEqualTo(1);
            op.completable = true;
            assertThat(p.checkAndComplete("k")).isEqualTo(1);
            assertThat(op.onCompleteCalls).hasValue(1);
            assertThat(p.watched()).isZero();
        }
    }

    @Test
    void checkAndComplete_fromAnotherThreadWhileTheSubmitterWaits_completesItWithoutWaitingOutTheBound()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("check")
                .clock(clock).expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            assertACheckEndsTheSubmittersWait(p, clock, handedOff);
        }
    }

    @Test
    void checkAndComplete_onAUserBuiltBackPressuredTimerWhileTheSubmitterWaits_completesItWithoutWaitingOutTheBound()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer userTimer = SystemTimer.builder("user-built").clock(clock).executor(handedOff::add)
                .backPressure(BOUND).build();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("given")
                .clock(clock).timer(userTimer).reaperEnabled(true).build()) {
            assertACheckEndsTheSubmittersWait(p, clock, handedOff); // the operation ends it, whoever built the timer
        } finally {
            userTimer.close();
        }
    }

    /**
     * With {@code p}'s timer fallen behind, a submitter waits; a check from this thread finds its
     * claim and asks it to try again (O3), which ends the wait: the operation completes once.
     */
    private static void assertACheckEndsTheSubmittersWait(DelayedOperationPurgatory<MockOperation> p,
            JumpingClock clock, Queue<Runnable> handedOff) throws InterruptedException {
        MockOperation op = new MockOperation(DAY_MS);
        fallBehind(p, new MockOperation(1), clock, handedOff);
        Thread submitter = submitInBackground(p, op);
        awaitParkedByBackPressure(submitter);
        try {
            op.completable = true;
            p.checkAndComplete("k");

            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            assertThat(submitter.isAlive()).as("the submitter stopped waiting to try again").isFalse();
        } finally {
            submitter.interrupt();
        }
        assertThat(op.onCompleteCalls).hasValue(1);
        assertThat(op.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(op.triedConcurrently).isFalse();
        handedOff.forEach(Runnable::run);
        assertThat(p.watched()).isZero();
    }

    @Test
    void cancelForKey_whileTheSubmitterWaits_answersTheCancelWithoutWaitingOutTheBound() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("cancel")
                .clock(clock).expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            fallBehind(p, new MockOperation(1), clock, handedOff);
            Thread submitter = submitInBackground(p, op);
            awaitParkedByBackPressure(submitter);
            try {
                assertThat(p.cancelForKey("k")).containsExactly(op);

                submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                assertThat(submitter.isAlive()).as("the submitter stopped waiting to run onCancel").isFalse();
            } finally {
                submitter.interrupt();
            }
            assertThat(op.onCancelCalls).hasValue(1);
            assertThat(op.onCompleteCalls).hasValue(0);
            handedOff.forEach(Runnable::run);
            assertThat(p.watched()).isZero();
            assertThat(p.numDelayed()).isZero();
        }
    }

    @Test
    void complete_keyedWaitsOnABackPressuredRuntimeWhileAnAwaitWaits_answersItWithoutWaitingOutTheBound()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-waits").clock(clock)
                .expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            KeyedWaits<String, String> waits = KeyedWaits.builder("waits").runtime(runtime).build();
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("behind")
                    .runtime(runtime).build();
            fallBehind(p, new MockOperation(1), clock, handedOff);
            AtomicReference<CompletableFuture<String>> awaited = new AtomicReference<>();
            Thread awaiter = new Thread(() -> awaited.set(waits.await("k", Duration.ofDays(1))), "awaiter");
            awaiter.start();
            awaitParkedByBackPressure(awaiter);
            try {
                waits.complete("k", "v");

                awaiter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                assertThat(awaiter.isAlive()).as("the await stopped waiting once answered").isFalse();
            } finally {
                awaiter.interrupt();
            }
            assertThat(awaited.get()).isCompletedWithValue("v");
            assertThat(waits.pending()).isZero();
            handedOff.forEach(Runnable::run);
        }
    }

    @Test
    void onExpiration_earlyAndLateEventWindowsOnABackPressuredRuntime_scheduleWithoutWaiting() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-events").clock(clock)
                .expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            KeyedWaits<String, String> waits = KeyedWaits.builder("events").runtime(runtime)
                    .retainEvents(Duration.ofDays(1), 10).lateEvents(Duration.ofDays(1), 10).build();
            CompletableFuture<String> timingOut = waits.await("ended", Duration.ofMillis(1));
            AtomicBoolean called = new AtomicBoolean();
            MockOperation late = new MockOperation(1) {
                @Override
                public void onExpiration() {
                    super.onExpiration();
                    waits.complete("early", "e"); // its window goes on the timer
                    called.set(true);
                }
            };
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("cbs")
                    .runtime(runtime).build();
            fallBehind(p, late, clock, handedOff); // `timingOut` is due too: its end's window goes on the timer

            Thread expirer = runAll(handedOff, "expirer");
            expirer.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            boolean ended = !expirer.isAlive();
            expirer.interrupt();

            assertThat(ended).as("the windows were scheduled without waiting").isTrue();
            assertThat(called).isTrue();
            assertThat(timingOut).isCompletedExceptionally();
            assertThat(waits.retainedEvents()).isEqualTo(1);
            assertThat(waits.await("early", Duration.ofDays(1))).isCompletedWithValue("e");
            assertThat(((SystemTimer) runtime.timer()).backPressureWaits()).isZero();
        }
    }

    @Test
    void close_ownTimerWhileASubmitterWaits_endsTheWaitAndAnswersItBeforeReturning() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("own-close")
                .clock(clock).expirationExecutor(handedOff::add).backPressure(BOUND).build();
        fallBehind(p, new MockOperation(1), clock, handedOff);
        Thread submitter = submitInBackground(p, op);
        awaitParkedByBackPressure(submitter);

        try (LogCapture closingLog = new LogCapture(Closing.class)) {
            p.close();
            assertThat(closingLog.events()).as("close did not give up waiting for the submitter").isEmpty();
        }
        assertThat(op.onCompleteCalls).as("answered before close returned").hasValue(1);
        assertThat(op.onExpirationCalls).as("expired by the close policy").hasValue(1);
        submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
        assertThat(submitter.isAlive()).isFalse();
    }

    @Test
    void close_runtimeWhileASubmitterWaits_endsTheWaitAndAnswersItBeforeReturning() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-close").clock(clock)
                .expirationExecutor(handedOff::add).backPressure(BOUND).build();
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("on-rt")
                .runtime(runtime).build();
        fallBehind(p, new MockOperation(1), clock, handedOff);
        Thread submitter = submitInBackground(p, op);
        awaitParkedByBackPressure(submitter);

        try (LogCapture closingLog = new LogCapture(Closing.class)) {
            runtime.close();
            assertThat(closingLog.events()).as("close did not give up waiting for the submitter").isEmpty();
        } finally {
            submitter.interrupt();
        }
        assertThat(op.onCompleteCalls).as("answered before close returned").hasValue(1);
        assertThat(op.onExpirationCalls).as("expired by the close policy").hasValue(1);
        submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
        assertThat(submitter.isAlive()).isFalse();
    }

    @Test
    void close_purgatoryOnARuntimeWhileItsSubmitterWaits_endsTheWaitAndAnswersItBeforeReturning()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-shared").clock(clock)
                .expirationExecutor(handedOff::add).backPressure(BOUND).build()) {
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("member")
                    .runtime(runtime).build();
            fallBehind(p, new MockOperation(1), clock, handedOff);
            Thread submitter = submitInBackground(p, op);
            awaitParkedByBackPressure(submitter);

            try (LogCapture closingLog = new LogCapture(Closing.class)) {
                p.close();
                assertThat(closingLog.events()).as("close did not give up waiting for the submitter").isEmpty();
            } finally {
                submitter.interrupt(); // the runtime's timer stays open: only this ends a wait close left
            }
            assertThat(op.onCompleteCalls).as("answered before close returned").hasValue(1);
            assertThat(op.onExpirationCalls).as("expired by the close policy").hasValue(1);
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            assertThat(submitter.isAlive()).isFalse();
        }
    }

    @Test
    void build_backPressureOnAPurgatoryGivenARuntime_throwsIaeNamingIt() {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-given").build()) {
            assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").backPressure(Duration.ofMillis(10))
                    .runtime(runtime).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("runtime(...) cannot be combined with [backPressure]");
        }
    }

    // ---- helpers ----

    /**
     * Submits {@code late} (1 ms), moves the clock an hour on, and waits until its expiry is handed
     * off and waits in {@code handedOff}: the timer then runs an hour behind, beyond BOUND.
     */
    private static void fallBehind(DelayedOperationPurgatory<MockOperation> p, MockOperation late,
                                   JumpingClock clock, Queue<Runnable> handedOff) throws InterruptedException {
        p.tryCompleteElseWatch(late, List.of("late"));
        clock.jump(Duration.ofHours(1));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
        while (handedOff.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(handedOff).as("the expiry was handed off").isNotEmpty();
        assertThat(timer(p).lagMs()).isGreaterThan(BOUND.toMillis());
    }

    private static SystemTimer timer(DelayedOperationPurgatory<?> p) {
        return (SystemTimer) p.engine().timer();
    }

    private static Thread runAll(Queue<Runnable> handedOff, String name) {
        Thread thread = new Thread(() -> {
            for (Runnable run = handedOff.poll(); run != null; run = handedOff.poll()) {
                run.run();
            }
        }, name);
        thread.start();
        return thread;
    }

    private static Thread submitInBackground(DelayedOperationPurgatory<MockOperation> p, MockOperation op) {
        Thread submitter = new Thread(() -> p.tryCompleteElseWatch(op, List.of("k")), "submitter");
        submitter.start();
        return submitter;
    }

    private static void awaitParkedByBackPressure(Thread submitter) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
        boolean parked = false;
        while (!parked && submitter.isAlive() && System.nanoTime() < end) {
            Object blocker = LockSupport.getBlocker(submitter);
            parked = blocker != null && blocker.getClass().getSimpleName().equals("BackPressure");
            Thread.sleep(1);
        }
        assertThat(parked).as("the submitter waits for the late expiries").isTrue();
    }
}
