package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TimerEngine E11 meeting the other mechanisms of the driver: a close while an asker waits, a
 * user's thread parked in advanceClock, a SystemTimer no one advances, many askers at once, and
 * work that throws from an asker that ran it itself for others.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard
class AskDriverMeetsTest {

    @Test
    void askDriver_closedWhileItWaitsForAHeldLock_returnsOnceTheLockIsFree_andRunsTheWorkAtMostOnce()
            throws Exception {
        ManualTimer timer = new ManualTimer();
        timer.add(new CountingTask(50));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> timer.engine().underDriverLock(d -> {
            holding.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }), "holder");
        holder.start();
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicInteger runs = new AtomicInteger();
        AtomicReference<Object> answer = new AtomicReference<>("not returned");
        Thread asker = new Thread(() -> answer.set(timer.engine().askDriver(d -> runs.incrementAndGet(),
                Long.MAX_VALUE)), "asker");
        asker.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (asker.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) {
            Thread.onSpinWait(); // parked in its poll: its work is queued, so the close comes while it waits
        }
        assertThat(asker.getState()).isEqualTo(Thread.State.TIMED_WAITING);
        Thread closer = new Thread(timer::close, "closer"); // waits for the lock too, then sweeps
        closer.start();
        release.countDown();
        holder.join();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        asker.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive() || asker.isAlive()).isFalse();
        assertThat(runs.get()).isEqualTo(1); // taken by the asker under the lock, on a swept wheel or before
        assertThat(answer.get()).isEqualTo(1);
        Integer afterClose = timer.engine().askDriver(d -> runs.incrementAndGet(), Long.MAX_VALUE);
        assertThat(afterClose).isNull();
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void askDriver_whileAUserThreadIsParkedInAdvanceClock_isAnswered_andTheAdvanceGoesOnUntilClosed()
            throws Exception {
        SystemTimer timer = SystemTimer.builder("advanced-by-a-user").build();
        timer.add(new CountingTask(3_600_000));
        AtomicReference<Object> advanced = new AtomicReference<>("not returned");
        CountDownLatch advancing = new CountDownLatch(1);
        Thread user = new Thread(() -> {
            advancing.countDown();
            try {
                advanced.set(timer.advanceClock(TimeUnit.SECONDS.toMillis(50)));
            } catch (InterruptedException | RuntimeException e) {
                advanced.set(e);
            }
        }, "advancer");
        user.start();
        assertThat(advancing.await(30, TimeUnit.SECONDS)).isTrue();
        while (user.getState() != Thread.State.TIMED_WAITING && user.isAlive()) {
            Thread.onSpinWait(); // until the user's thread parks, holding the lock
        }
        for (int i = 0; i < 50; i++) {
            String answer = timer.engine().askDriver(d -> "answered", Long.MAX_VALUE);
            assertThat(answer).isEqualTo("answered");
        }
        assertThat(user.isAlive()).as("an answered ask does not end the user's advance").isTrue();
        timer.close();
        user.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(user.isAlive()).isFalse();
        assertThat(advanced.get()).as("the advance ends, as closed, having expired nothing").isEqualTo(false);
    }

    @Test
    void askDriver_onASystemTimerNoOneAdvances_runsTheWorkOnTheAskingThread() {
        try (SystemTimer timer = SystemTimer.builder("undriven").build()) {
            CountingTask task = new CountingTask(3_600_000);
            timer.add(task);
            Thread asking = Thread.currentThread();
            Boolean onAskingThread = timer.engine().askDriver(d -> Thread.currentThread() == asking, 0);
            assertThat(onAskingThread).isTrue();
            assertThat(task.runs()).isZero();
        }
    }

    @Test
    void askDriver_manyAskersOnAParkedReaper_eachGetsItsOwnAnswer_eachWorkRunsOnce() throws Exception {
        try (SystemTimer timer = SystemTimer.builder("many-askers").build()) {
            SystemTimerReaper reaper = SystemTimerReaper.start("many-askers", timer);
            try {
                timer.add(new CountingTask(3_600_000));
                int threads = 4;
                int asks = 100;
                AtomicInteger runs = new AtomicInteger();
                AtomicBoolean wrong = new AtomicBoolean();
                List<Thread> askers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    Thread asker = new Thread(() -> {
                        for (int i = 0; i < asks; i++) {
                            int mine = id * 1_000 + i;
                            Integer answer = timer.engine().askDriver(d -> {
                                runs.incrementAndGet();
                                return mine;
                            }, Long.MAX_VALUE);
                            if (answer == null || answer != mine) {
                                wrong.set(true);
                            }
                        }
                    }, "asker-" + t);
                    askers.add(asker);
                    asker.start();
                }
                for (Thread asker : askers) {
                    asker.join(TimeUnit.SECONDS.toMillis(30));
                    assertThat(asker.isAlive()).isFalse();
                }
                assertThat(wrong).isFalse();
                assertThat(runs.get()).isEqualTo(threads * asks);
            } finally {
                reaper.close();
            }
        }
    }

    @Test
    void askDriver_workThatThrowsRunByAnotherAsker_reachesItsOwnAsker_notTheOneThatRanIt() throws Exception {
        ManualTimer timer = new ManualTimer();
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch secondAsked = new CountDownLatch(1);
        AtomicReference<Object> first = new AtomicReference<>();
        Thread firstAsker = new Thread(() -> {
            try {
                first.set(timer.engine().askDriver(d -> {
                    firstRunning.countDown();
                    try {
                        secondAsked.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "first";
                }, Long.MAX_VALUE));
            } catch (Throwable t) {
                first.set(t);
            }
        }, "first-asker");
        firstAsker.start();
        assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Object> second = new AtomicReference<>();
        Thread secondAsker = new Thread(() -> {
            try {
                second.set(timer.engine().askDriver(d -> {
                    throw new IllegalStateException("expected by the test");
                }, Long.MAX_VALUE));
            } catch (Throwable t) {
                second.set(t);
            }
        }, "second-asker");
        secondAsker.start();
        while (secondAsker.getState() != Thread.State.TIMED_WAITING && secondAsker.isAlive()) {
            Thread.onSpinWait(); // queued and polling
        }
        secondAsked.countDown();
        firstAsker.join(TimeUnit.SECONDS.toMillis(30));
        secondAsker.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(first.get()).isEqualTo("first");
        assertThat(second.get()).isInstanceOf(IllegalStateException.class);
        timer.close();
    }
}
