package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import ch.qos.logback.classic.Level;
import io.purgatory.testsupport.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Kafka's SystemTimerReaperTest, plus the reaper's own lifecycle and failure handling. */
class SystemTimerReaperTest {

    private static final long BOUND_SECONDS = 10;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private SystemTimerReaper startedReaper(Timer timer) {
        SystemTimerReaper reaper = SystemTimerReaper.start("reaper", timer);
        toClose.add(reaper);
        return reaper;
    }

    /** Counts down when it runs and remembers how long after its add that was. */
    private static final class ExpiringTask extends TimerTask {
        final CountDownLatch ran = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        volatile long addedAtNanos;
        volatile long ranAtNanos;

        ExpiringTask(long delayMs) {
            super(delayMs);
        }

        ExpiringTask addTo(Timer timer) {
            addedAtNanos = System.nanoTime();
            timer.add(this);
            return this;
        }

        @Override
        public void run() {
            ranAtNanos = System.nanoTime();
            runs.incrementAndGet();
            ran.countDown();
        }

        void assertRanOnceAfterItsDelay() throws InterruptedException {
            assertThat(ran.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("task with delay %d ran", delayMs()).isTrue();
            assertThat(runs.get()).isEqualTo(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(ranAtNanos - addedAtNanos)).isGreaterThanOrEqualTo(delayMs());
        }
    }

    /** A timer wrapper that counts {@link #close()} calls. */
    private static final class CountingTimer implements Timer {
        final Timer delegate;
        final AtomicInteger closes = new AtomicInteger();

        CountingTimer(Timer delegate) {
            this.delegate = delegate;
        }

        @Override
        public void add(TimerTask task) {
            delegate.add(task);
        }

        @Override
        public boolean advanceClock(long timeoutMs) throws InterruptedException {
            return delegate.advanceClock(timeoutMs);
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            delegate.close();
        }
    }

    @Test
    void reaper_tasksAt100To300Ms_allRunDrivenOnlyByTheReaper() throws Exception {
        SystemTimer timer = new SystemTimer("reaped");
        SystemTimerReaper reaper = startedReaper(timer);

        List<ExpiringTask> tasks = List.of(
                new ExpiringTask(100).addTo(reaper),
                new ExpiringTask(200).addTo(reaper),
                new ExpiringTask(300).addTo(reaper));

        for (ExpiringTask task : tasks) {
            task.assertRanOnceAfterItsDelay();
        }
        assertThat(reaper.size()).isZero();
    }

    @Test
    void close_startedReaper_closesTheTimerOnceAndTheThreadEnds() throws Exception {
        CountingTimer timer = new CountingTimer(new SystemTimer("counted"));
        SystemTimerReaper reaper = startedReaper(timer);
        ExpiringTask pending = new ExpiringTask(60_000).addTo(reaper);
        assertThat(reaper.isAlive()).isTrue();

        reaper.close();
        reaper.close();

        assertThat(reaper.isAlive()).isFalse();
        assertThat(timer.closes.get()).isEqualTo(1);
        assertThat(pending.isCancelled()).isTrue();
        assertThat(reaper.size()).isZero();
    }

    @Test
    void close_withAMockTimer_closesItExactlyOnce() throws Exception {
        Timer timer = mock(Timer.class);
        when(timer.advanceClock(anyLong())).thenAnswer(invocation -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            return false;
        });
        SystemTimerReaper reaper = SystemTimerReaper.start("mocked", timer);

        reaper.close();
        reaper.close();

        assertThat(reaper.isAlive()).isFalse();
        verify(timer, times(1)).close();
    }

    @Test
    void reaper_sharedTimer_keepsExpiringTasksAddedLater() throws Exception {
        SystemTimer timer = new SystemTimer("shared");
        SystemTimerReaper reaper = startedReaper(timer);

        new ExpiringTask(100).addTo(reaper).assertRanOnceAfterItsDelay();
        new ExpiringTask(200).addTo(reaper).assertRanOnceAfterItsDelay();
        new ExpiringTask(100).addTo(reaper).assertRanOnceAfterItsDelay();
        assertThat(reaper.size()).isZero();
    }

    @Test
    void start_nullOrBlankArguments_throwNamingThemAndStartNoThread() {
        assertThatNullPointerException().isThrownBy(() -> SystemTimerReaper.start(null, new ManualTimer()))
                .withMessage("name");
        assertThatNullPointerException().isThrownBy(() -> SystemTimerReaper.start("reaper", null))
                .withMessage("timer");
        assertThatNullPointerException().isThrownBy(() -> SystemTimerReaper.start("reaper", new ManualTimer(), null))
                .withMessage("afterEachAdvance");
        assertThatThrownBy(() -> SystemTimerReaper.start(" ", new ManualTimer()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("name must not be blank: ' '");
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("reaper"));
    }

    @Test
    void start_newReaper_drivesOnADaemonThreadNamedAfterIt() throws Exception {
        CountDownLatch seen = new CountDownLatch(1);
        Thread[] driver = new Thread[1];
        Timer timer = mock(Timer.class);
        when(timer.advanceClock(anyLong())).thenAnswer(invocation -> {
            driver[0] = Thread.currentThread();
            seen.countDown();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            return false;
        });
        SystemTimerReaper reaper = SystemTimerReaper.start("named-reaper", timer);
        toClose.add(reaper);

        assertThat(seen.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        reaper.close();

        assertThat(driver[0].getName()).isEqualTo("named-reaper");
        assertThat(driver[0].isDaemon()).isTrue();
        verify(timer, atLeast(1)).advanceClock(SystemTimerReaper.WORK_TIMEOUT_MS);
    }

    @Test
    void reaper_timerThrows_threadSurvivesAndKeepsAdvancing() throws Exception {
        CountDownLatch callsAfterFailures = new CountDownLatch(3);
        Timer timer = mock(Timer.class);
        when(timer.advanceClock(anyLong()))
                .thenThrow(new RuntimeException("expected by the test: first failure"))
                .thenThrow(new RuntimeException("expected by the test: second failure"))
                .thenAnswer(invocation -> {
                    callsAfterFailures.countDown();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    return false;
                });
        try (LogCapture log = new LogCapture(TimerDriver.class)) {
            SystemTimerReaper reaper = SystemTimerReaper.start("survivor", timer);
            toClose.add(reaper);

            assertThat(callsAfterFailures.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(reaper.isAlive()).isTrue();

            reaper.close();
            assertThat(reaper.isAlive()).isFalse();
            assertThat(log.events()).allSatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'survivor'", "retrying");
            }).extracting(e -> e.getThrowableProxy().getMessage()).containsExactly(
                    "expected by the test: first failure", "expected by the test: second failure");
        }
        verify(timer, atLeast(5)).advanceClock(SystemTimerReaper.WORK_TIMEOUT_MS);
        verify(timer, times(1)).close();
    }

    @Test
    void reaper_wrappedTimerClosedDirectly_threadStopsInsteadOfRetrying() throws Exception {
        SystemTimer timer = SystemTimer.builder("closed-under-reaper").build();
        try (LogCapture log = new LogCapture(TimerDriver.class)) {
            SystemTimerReaper reaper = SystemTimerReaper.start("orphaned-reaper", timer);
            toClose.add(reaper);

            timer.close();

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (reaper.isAlive() && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            assertThat(reaper.isAlive()).as("the reaper ends once its timer refuses to advance").isFalse();
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("'orphaned-reaper'", "closed directly");
            });
        }
    }

    @Test
    void addAdvanceClockAndSize_startedReaper_delegateToTheTimer() throws Exception {
        Timer timer = parkingMock();
        when(timer.size()).thenReturn(7);
        SystemTimerReaper reaper = SystemTimerReaper.start("delegating", timer);
        toClose.add(reaper);
        ExpiringTask task = new ExpiringTask(5);

        reaper.add(task);
        reaper.advanceClock(3);

        verify(timer).add(task);
        verify(timer).advanceClock(3);
        assertThat(reaper.size()).isEqualTo(7);
    }

    @Test
    void afterEachAdvance_hookSet_runsOnTheReaperThreadAfterEveryAdvance() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        CountDownLatch threeRounds = new CountDownLatch(3);
        Timer timer = mock(Timer.class);
        when(timer.advanceClock(anyLong())).thenAnswer(invocation -> {
            calls.add("advance");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            return false;
        });
        SystemTimerReaper reaper = SystemTimerReaper.start("purging", timer, () -> {
            calls.add("after:" + Thread.currentThread().getName());
            threeRounds.countDown();
        });
        toClose.add(reaper);

        assertThat(threeRounds.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        reaper.close();

        assertThat(calls.subList(0, 6)).containsExactly("advance", "after:purging", "advance", "after:purging",
                "advance", "after:purging");
    }

    @Test
    void afterEachAdvance_throwsAnExceptionThenAnError_isLoggedAndTheThreadKeepsAdvancing() throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        CountDownLatch survived = new CountDownLatch(1);
        Timer timer = parkingMock();
        try (LogCapture log = new LogCapture(TimerDriver.class)) {
            SystemTimerReaper reaper = SystemTimerReaper.start("policy-fails", timer, () -> {
                int round = rounds.incrementAndGet();
                if (round == 1) {
                    throw new IllegalStateException("expected by the test: policy failed");
                }
                if (round == 2) {
                    throw new AssertionError("expected by the test: policy failed with an Error");
                }
                survived.countDown();
            });
            toClose.add(reaper);

            assertThat(survived.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(reaper.isAlive()).isTrue();
            reaper.close();
            assertThat(log.events()).allSatisfy(e -> {
                assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                assertThat(e.getFormattedMessage()).contains("'policy-fails'", "carries on");
            }).extracting(e -> e.getThrowableProxy().getMessage()).containsExactly(
                    "expected by the test: policy failed", "expected by the test: policy failed with an Error");
        }
        verify(timer, atLeast(3)).advanceClock(SystemTimerReaper.WORK_TIMEOUT_MS);
        verify(timer, times(1)).close();
    }

    @Test
    void close_fromTheReaperThreadItself_doesNotWaitForItselfAndClosesTheTimerOnce() throws Exception {
        CountingTimer timer = new CountingTimer(new SystemTimer("self-closed"));
        CountDownLatch closed = new CountDownLatch(1);
        SystemTimerReaper[] self = new SystemTimerReaper[1];
        CountDownLatch started = new CountDownLatch(1);
        SystemTimerReaper reaper = SystemTimerReaper.start("self-closing", timer, () -> {
            awaitQuietly(started);
            self[0].close();
            closed.countDown();
        });
        self[0] = reaper;
        started.countDown();

        assertThat(closed.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("close returned on the reaper thread").isTrue();
        reaper.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (reaper.isAlive() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertThat(reaper.isAlive()).isFalse();
        assertThat(timer.closes.get()).isEqualTo(1);
    }

    /** A mock timer whose advanceClock parks a millisecond, so that a reaper driving it does not spin. */
    private static Timer parkingMock() throws InterruptedException {
        Timer timer = mock(Timer.class);
        when(timer.advanceClock(anyLong())).thenAnswer(invocation -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            return false;
        });
        return timer;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
