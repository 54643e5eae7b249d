package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.internal.EngineInternals;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.Clock;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.SystemTimerReaper;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerTask;
import io.purgatory.timer.TimerSettings;
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
 * Where and how long a submission waits for a back-pressured timer (Engine N7): before it takes
 * its slot and claim, so its operation is not pending meanwhile and nothing else waits for it;
 * never on the timer's own threads, nor for what the library puts on the timer; a close of the
 * timer or an interrupt ends it, and the submission then goes on. The timer
 * falls behind at once: its clock jumps an hour while the expiries it hands off wait in a queue,
 * and the bound is ten minutes, so a wait that should not happen outlasts every failure bound.
 */
class BackPressureWaitTest {

    private static final long GENEROUS_SECONDS = 30;
    private static final Duration BOUND = Duration.ofMinutes(10);
    private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);
    private static final TimerSettings PRESSED = TimerSettings.DEFAULT.withBackPressure(BOUND);
    /** The logger of the one close rule, which warns when a close gives up waiting. */
    private static final String CLOSE_LOG = "io.purgatory.internal.CloseOnce";

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
                .clock(clock).expirationExecutor(handedOff::add).timerSettings(PRESSED).build()) {
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
        MockOperation late = new MockOperation(TimeUnit.MINUTES.toMillis(1)) { // not due before the jump: a 1 ms one
            // fell due on the real clock first, now and then, and the reaper ran it on time (lag 0)
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
                     .clock(clock).expirationExecutor(rejecting).timerSettings(PRESSED).build()) {
            self.set(p);
            p.tryCompleteElseWatch(late, List.of("late"));
            clock.jump(Duration.ofHours(1)); // due 59 min ago: the reaper runs it that late, itself

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
                .clock(clock).expirationExecutor(handedOff::add).timerSettings(PRESSED).build()) {
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
    void tryCompleteElseWatch_waitingForBackPressure_holdsNoSlotAndItsOperationIsNotPendingYet() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer userTimer = SystemTimer.builder("user-built").clock(clock).executor(handedOff::add)
                .settings(PRESSED).build();
        MockOperation op = new MockOperation(DAY_MS);
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("given")
                .clock(clock).timer(userTimer).reaperEnabled(true).build()) {
            fallBehind(p, new MockOperation(1), clock, handedOff); // whoever built the timer, a submitter waits
            Thread submitter = submitInBackground(p, op);
            awaitParkedByBackPressure(submitter);
            try {
                op.completable = true;
                assertThat(p.checkAndComplete("k")).as("(N7) not submitted yet: nothing to try").isZero();
                assertThat(p.numDelayed()).as("the late one only").isEqualTo(1);
            } finally {
                submitter.interrupt(); // ends the wait: the submission goes on
            }
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            assertThat(submitter.isAlive()).isFalse();
            assertThat(op.outcome()).as("completed by its first try once its wait ended").isEqualTo(Outcome.COMPLETED);
            assertThat(op.onCompleteCalls).hasValue(1);
            handedOff.forEach(Runnable::run);
        } finally {
            userTimer.close();
        }
    }

    @Test
    void cancel_ofAnOperationWhoseSubmitterWaits_runsOnCancelAtOnceAndTheSubmissionIsThenRefused()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        AtomicReference<Throwable> refused = new AtomicReference<>();
        try (DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("cancel")
                .clock(clock).expirationExecutor(handedOff::add).timerSettings(PRESSED).maxPending(2).build()) {
            fallBehind(p, new MockOperation(1), clock, handedOff);
            Thread submitter = new Thread(() -> {
                try {
                    p.tryCompleteElseWatch(op, List.of("k"));
                } catch (Throwable t) {
                    refused.set(t);
                }
            }, "submitter");
            submitter.start();
            awaitParkedByBackPressure(submitter);
            try {
                assertThat(op.cancel()).isTrue();
                assertThat(op.onCancelCalls).as("the cancel waits for nothing").hasValue(1);
            } finally {
                submitter.interrupt();
            }
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            assertThat(submitter.isAlive()).isFalse();
            assertThat(refused.get()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already settled");
            assertThat(op.onCompleteCalls).hasValue(0);
            handedOff.forEach(Runnable::run);
            assertThat(p.numDelayed()).isZero();
            MockOperation probe = new MockOperation(DAY_MS);
            p.tryCompleteElseWatch(probe, List.of("probe"));
            p.tryCompleteElseWatch(new MockOperation(DAY_MS), List.of("probe")); // maxPending 2: no slot leaked
            assertThat(p.numDelayed()).isEqualTo(2);
        }
    }

    @Test
    void onExpiration_earlyAndLateEventWindowsOnABackPressuredRuntime_scheduleWithoutWaiting() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-events").clock(clock)
                .expirationExecutor(handedOff::add).timerSettings(PRESSED).build()) {
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
            assertThat(((SystemTimer) EngineInternals.timer(runtime.core())).backPressureWaits()).isZero();
        }
    }

    @Test
    void close_ownTimerWhileASubmitterWaits_endsTheWaitAndTheSubmissionIsRefusedUntouched() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("own-close")
                .clock(clock).expirationExecutor(handedOff::add).timerSettings(PRESSED).build();
        fallBehind(p, new MockOperation(1), clock, handedOff);
        Thread submitter = submitInBackground(p, op);
        awaitParkedByBackPressure(submitter);

        try (LogCapture closingLog = new LogCapture(CLOSE_LOG)) {
            p.close(); // closes the own timer, which ends the wait
            assertThat(closingLog.events()).as("(N7) close had nothing of the submitter's to wait for").isEmpty();
        }
        submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
        assertThat(submitter.isAlive()).isFalse();
        assertThat(op.isCompleted()).as("held back before it was taken: refused untouched, still submittable")
                .isFalse();
        assertThat(op.tryCompleteCalls).hasValue(0);
        assertThat(p.numDelayed()).isZero();
    }

    @Test
    void close_runtimeWhileASubmitterWaits_endsTheWaitAndTheSubmissionIsRefusedUntouched() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-close").clock(clock)
                .expirationExecutor(handedOff::add).timerSettings(PRESSED).build();
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("on-rt")
                .runtime(runtime).build();
        fallBehind(p, new MockOperation(1), clock, handedOff);
        Thread submitter = submitInBackground(p, op);
        awaitParkedByBackPressure(submitter);

        try (LogCapture closingLog = new LogCapture(CLOSE_LOG)) {
            runtime.close(); // closes the runtime's timer, which ends the wait
            assertThat(closingLog.events()).as("(N7) close had nothing of the submitter's to wait for").isEmpty();
        }
        submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
        assertThat(submitter.isAlive()).isFalse();
        assertThat(op.isCompleted()).as("held back before it was taken: refused untouched, still submittable")
                .isFalse();
        assertThat(op.tryCompleteCalls).hasValue(0);
        assertThat(p.numDelayed()).isZero();
    }

    @Test
    void close_purgatoryOnARuntimeWhileItsSubmitterWaits_returnsAtOnceAndTheSubmissionIsRefusedUntouched()
            throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        MockOperation op = new MockOperation(DAY_MS);
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-shared").clock(clock)
                .expirationExecutor(handedOff::add).timerSettings(PRESSED).build()) {
            DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("member")
                    .runtime(runtime).build();
            fallBehind(p, new MockOperation(1), clock, handedOff);
            Thread submitter = submitInBackground(p, op);
            awaitParkedByBackPressure(submitter);

            try (LogCapture closingLog = new LogCapture(CLOSE_LOG)) {
                p.close();
                assertThat(closingLog.events()).as("(N7) close had nothing of the submitter's to wait for").isEmpty();
                assertThat(op.isCompleted()).as("not submitted yet: not the close's to settle").isFalse();
            } finally {
                submitter.interrupt(); // the runtime's timer stays open: only this ends the wait
            }
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            assertThat(submitter.isAlive()).isFalse();
            assertThat(op.isCompleted()).as("held back before it was taken: refused untouched").isFalse();
            assertThat(op.tryCompleteCalls).hasValue(0);
            assertThat(p.numDelayed()).isZero();
        }
    }

    @Test
    void build_backPressuredTimerSettingsOnAPurgatoryGivenARuntime_throwsIaeNamingThem() {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("rt-given").build()) {
            assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").timerSettings(PRESSED)
                    .runtime(runtime).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("runtime(...) cannot be combined with [timerSettings]");
        }
    }

    @Test
    void build_aTimerOfTheUsersOwn_isRefusedNamingIt() {
        Timer own = new Timer() {
            @Override
            public void add(TimerTask task) {
            }

            @Override
            public boolean advanceClock(long timeoutMs) {
                return false;
            }

            @Override
            public int size() {
                return 0;
            }

            @Override
            public void close() {
            }

            @Override
            public String toString() {
                return "own-timer";
            }
        };
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("p").timer(own))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timer: a SystemTimer, a ManualTimer or a SystemTimerReaper of one, not own-timer");
    }

    @Test
    void complete_earlyEventWindowOnAReaperOfABackPressuredTimer_schedulesWithoutWaiting() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer inner = SystemTimer.builder("inner").clock(clock).executor(handedOff::add).settings(PRESSED)
                .build();
        SystemTimerReaper reaper = SystemTimerReaper.start("wrapping", inner);
        KeyedWaits<String, String> waits = KeyedWaits.builder("wrapped").timer(reaper)
                .retainEvents(Duration.ofDays(1), 10).build();
        Thread completer = new Thread(() -> waits.complete("k", "v"), "completer");
        try {
            CompletableFuture<String> late = waits.await("late", Duration.ofMillis(1));
            fallBehind(inner, clock, handedOff);

            completer.start();
            boolean parked = awaitEndOrParkedByBackPressure(completer);

            assertThat(parked).as("the window waited for the late expiries").isFalse();
            assertThat(completer.isAlive()).isFalse();
            assertThat(late).isNotDone();
        } finally {
            if (completer.isAlive()) {
                inner.close(); // ends its wait (the test failed); its drivers say the timer was closed under them
            }
            completer.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            handedOff.forEach(Runnable::run);
            waits.close(); // stops the driver the waits run on the reaper, then the reaper and its timer
            reaper.close();
        }
    }

    @Test
    void tryCompleteElseWatch_onAReaperOfABackPressuredTimer_waitsBeforeItsOperationIsPending() throws Exception {
        JumpingClock clock = new JumpingClock();
        Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();
        SystemTimer inner = SystemTimer.builder("inner").clock(clock).executor(handedOff::add).settings(PRESSED)
                .build();
        SystemTimerReaper reaper = SystemTimerReaper.start("wrapping-p", inner);
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("wrapped-p")
                .clock(clock).timer(reaper).build();
        MockOperation op = new MockOperation(DAY_MS);
        AtomicReference<Throwable> refusal = new AtomicReference<>();
        Thread submitter = new Thread(() -> {
            try {
                p.tryCompleteElseWatch(op, List.of("k"));
            } catch (IllegalStateException refused) {
                refusal.set(refused); // its operation was cancelled while it waited
            }
        }, "submitter");
        try {
            p.tryCompleteElseWatch(new MockOperation(1), List.of("late"));
            fallBehind(inner, clock, handedOff);

            submitter.start();
            awaitParkedByBackPressure(submitter);

            assertThat(p.numDelayed()).as("(N7) the late one only: not the one whose submitter waits").isOne();
            assertThat(op.cancel()).isTrue();
            assertThat(op.onCancelCalls).as("the cancel waits for nothing").hasValue(1);
        } finally {
            submitter.interrupt();
            submitter.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
            handedOff.forEach(Runnable::run);
            p.close();
            reaper.close(); // its driver first, then the timer: no driver finds it closed under it
        }
        assertThat(refusal.get()).as("the submission of the cancelled operation, refused untouched")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already settled (CANCELLED)");
    }

    // ---- helpers ----

    /**
     * Moves {@code clock} an hour on and waits until an expiry due meanwhile is handed off and waits in
     * {@code handedOff}: {@code timer} then runs an hour behind, beyond BOUND.
     */
    private static void fallBehind(SystemTimer timer, JumpingClock clock, Queue<Runnable> handedOff)
            throws InterruptedException {
        clock.jump(Duration.ofHours(1));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
        while (handedOff.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(handedOff).as("the expiry was handed off").isNotEmpty();
        assertThat(timer.lagMs()).isGreaterThan(BOUND.toMillis());
    }

    /** Waits until {@code thread} ends or parks in the timer's back-pressure; returns true iff it parked. */
    private static boolean awaitEndOrParkedByBackPressure(Thread thread) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
        while (thread.isAlive() && System.nanoTime() < end) {
            Object blocker = LockSupport.getBlocker(thread);
            if (blocker != null && blocker.getClass().getSimpleName().equals("BackPressure")) {
                return true;
            }
            Thread.sleep(1);
        }
        return false;
    }

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
        return (SystemTimer) EngineInternals.timer(p.engine().runtime());
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
        Thread submitter = new Thread(() -> {
            try {
                p.tryCompleteElseWatch(op, List.of("k"));
            } catch (IllegalStateException closedMeanwhile) {
                assertThat(p.isClosed()).as("refused only once the purgatory closed").isTrue();
            }
        }, "submitter");
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
