package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.internal.DueVisitor;
import io.purgatory.timer.internal.EntryAccess;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TimerEngine E11: work asked of the driver runs once, under the driver lock, whether a driver is
 * parked (holding the lock), busy, or absent; never on the driving thread, nor after close, nor
 * after its asker gave up. And DriverState.visitByDue: every scheduled entry, by bucket in due
 * order, with a bound no later than any deadline of the bucket it precedes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard: a lost wake-up would wait for ever
class AskDriverTest {

    @Test
    void askDriver_whileAReaperIsParkedOnAFarDeadline_runsTheWorkOnceAndReturnsItsResult() throws Exception {
        try (SystemTimer timer = SystemTimer.builder("asked").build()) {
            SystemTimerReaper reaper = SystemTimerReaper.start("asked", timer);
            try {
                timer.add(new CountingTask(3_600_000)); // the reaper parks until then, holding the lock
                AtomicInteger runs = new AtomicInteger();
                for (int i = 0; i < 200; i++) {
                    Integer answer = timer.engine().askDriver(d -> runs.incrementAndGet(), Long.MAX_VALUE);
                    assertThat(answer).isEqualTo(i + 1);
                }
                assertThat(runs).hasValue(200);
            } finally {
                reaper.close();
            }
        }
    }

    @Test
    void askDriver_fromAnEntryRunningOnTheDrivingThread_returnsNullAndRunsNothing() {
        ManualTimer timer = new ManualTimer();
        AtomicInteger runs = new AtomicInteger();
        AtomicReference<Object> answer = new AtomicReference<>("not asked");
        timer.add(new CountingTask(5, () -> answer.set(timer.engine().askDriver(d -> runs.incrementAndGet(), 0))));
        timer.advanceClock(5);
        assertThat(answer.get()).isNull();
        assertThat(runs).hasValue(0);
        timer.close();
    }

    @Test
    void askDriver_onAClosedTimer_returnsNullAndRunsNothing() {
        ManualTimer timer = new ManualTimer();
        timer.close();
        AtomicInteger runs = new AtomicInteger();
        Integer answer = timer.engine().askDriver(d -> runs.incrementAndGet(), Long.MAX_VALUE);
        assertThat(answer).isNull();
        assertThat(runs).hasValue(0);
    }

    @Test
    void askDriver_workThatThrows_rethrowsToItsAsker_andTheDriverGoesOn() {
        ManualTimer timer = new ManualTimer();
        CountingTask later = new CountingTask(5);
        timer.add(later);
        assertThatThrownBy(() -> timer.engine().<Object>askDriver(d -> {
            throw new IllegalStateException("expected by the test");
        }, Long.MAX_VALUE)).isInstanceOf(IllegalStateException.class).hasMessage("expected by the test");
        assertThatThrownBy(() -> timer.engine().<Object>askDriver(d -> {
            throw new StackOverflowError("expected by the test");
        }, Long.MAX_VALUE)).isInstanceOf(StackOverflowError.class);
        timer.advanceClock(5);
        assertThat(later.runs()).isEqualTo(1);
        timer.close();
    }

    @Test
    void askDriver_whenTheLockIsHeldPastItsBound_withdrawsTheWork_whichNeverRuns() throws Exception {
        ManualTimer timer = new ManualTimer();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> timer.engine().underDriverLock(d -> {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        holder.start();
        holding.await();
        AtomicInteger runs = new AtomicInteger();
        Integer withdrawn = timer.engine().askDriver(d -> runs.incrementAndGet(), TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(withdrawn).isNull();
        release.countDown();
        holder.join();
        timer.advanceClock(1); // a driver's step: nothing withdrawn is left to run
        Integer answer = timer.engine().askDriver(d -> runs.incrementAndGet(), Long.MAX_VALUE);
        assertThat(answer).isEqualTo(1);
        assertThat(runs).hasValue(1);
        timer.close();
    }

    @Test
    void askDriver_workStillRunningOnTheDriverPastTheAskersBound_isWaitedFor_notWithdrawn() throws Exception {
        try (SystemTimer timer = SystemTimer.builder("slow-work").build()) {
            SystemTimerReaper reaper = SystemTimerReaper.start("slow-work", timer);
            try {
                timer.add(new CountingTask(3_600_000));
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                AtomicReference<Object> answer = new AtomicReference<>("not answered");
                Thread asker = new Thread(() -> answer.set(timer.engine().askDriver(d -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "ran";
                }, TimeUnit.MILLISECONDS.toNanos(1))), "asker");
                asker.start();
                started.await();
                Thread.sleep(20); // the asker's bound passes while its work runs (on the reaper, or on the asker)
                release.countDown();
                asker.join();
                assertThat(answer.get()).isEqualTo("ran"); // a withdrawal now would let its list run beside it
            } finally {
                reaper.close();
            }
        }
    }

    @Test
    void askDriver_interruptedAsker_stillGetsItsAnswer_andKeepsItsInterrupt() throws Exception {
        try (SystemTimer timer = SystemTimer.builder("interrupted").build()) {
            SystemTimerReaper reaper = SystemTimerReaper.start("interrupted", timer);
            try {
                timer.add(new CountingTask(3_600_000));
                Thread.currentThread().interrupt();
                String answer = timer.engine().askDriver(d -> "answered", Long.MAX_VALUE);
                assertThat(answer).isEqualTo("answered");
                assertThat(Thread.interrupted()).isTrue();
            } finally {
                reaper.close();
            }
        }
    }

    @ParameterizedTest(name = "tick {0} ms")
    @ValueSource(longs = {1, 3})
    void visitByDue_entriesOnEveryLevelAndTheInbox_showsEachScheduledOnceWithBoundsAtOrBeforeItsBucket(long tickMs) {
        ManualTimer timer = new ManualTimer(new ManualClock(), tickMs, 8, (task, error) -> { });
        timer.advanceClock(3);
        List<CountingTask> all = new ArrayList<>();
        long[] delays = {1, 2, 7, 8, 9, 15, 63, 64, 65, 500, 511, 512, 4_000, 40_000, 3, 3, 70};
        for (long delay : delays) {
            CountingTask t = new CountingTask(delay);
            all.add(t);
            timer.add(t);
        }
        timer.advanceClock(0); // places what is on the inbox
        for (long delay : new long[] {5, 600, 2}) { // left on the inbox
            CountingTask t = new CountingTask(delay);
            all.add(t);
            timer.add(t);
        }
        CountingTask cancelled = all.get(9);
        cancelled.cancel();
        List<TimerEntry> shown = new ArrayList<>();
        List<Long> bounds = new ArrayList<>();
        AtomicReference<String> broken = new AtomicReference<>();
        assertThat(EntryAccess.get().visitByDue(timer, new DueVisitor() {
            @Override
            public boolean wants(long fromMs) {
                bounds.add(fromMs);
                return true;
            }

            @Override
            public void visit(TimerEntry entry, long deadlineMs) {
                if (!bounds.isEmpty() && deadlineMs < bounds.get(bounds.size() - 1)) {
                    broken.set(entry + " due " + deadlineMs + " shown after a bound of " + bounds);
                }
                assertThat(deadlineMs).isEqualTo(entry.deadlineMs);
                shown.add(entry);
            }
        }, Long.MAX_VALUE)).isTrue();
        assertThat(broken.get()).isNull();
        assertThat(bounds).isSorted();
        Set<TimerEntry> expected = new HashSet<>(all);
        expected.remove(cancelled);
        assertThat(shown).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        timer.close();
    }

    @Test
    void visitByDue_visitorThatWantsNoMore_stopsBeforeTheNextBucket() {
        ManualTimer timer = new ManualTimer();
        for (long delay = 1; delay <= 100; delay++) {
            timer.add(new CountingTask(delay * 10));
        }
        timer.advanceClock(0);
        List<Long> shown = new ArrayList<>();
        assertThat(EntryAccess.get().visitByDue(timer, new DueVisitor() {
            @Override
            public boolean wants(long fromMs) {
                return fromMs < 300;
            }

            @Override
            public void visit(TimerEntry entry, long deadlineMs) {
                shown.add(deadlineMs);
            }
        }, Long.MAX_VALUE)).isTrue();
        assertThat(shown).isNotEmpty().allMatch(d -> d < 300 + 10) // the bucket that crossed 300 was not read
                .contains(10L, 290L);
        timer.close();
    }
}
