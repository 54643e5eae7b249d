package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TimerEngine E11 where an asker's bound meets work already started: an asker withdraws only work
 * that no thread has taken; work the driver (or another asker) is running is waited for, so an
 * asker that gets null knows nothing of its work runs, and one that gets an answer gets it once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard
class AskDriverWithdrawTest {

    @Test
    void askDriver_boundPassesWhileTheDriverRunsTheWork_waitsForItsAnswer_neverNullWhileItRuns() throws Exception {
        try (SystemTimer timer = SystemTimer.builder("running-past-bound").build()) {
            SystemTimerReaper reaper = SystemTimerReaper.start("running-past-bound", timer);
            try {
                timer.add(new CountingTask(3_600_000)); // the reaper parks holding the lock
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch askerReturned = new CountDownLatch(1);
                AtomicBoolean returnedWhileRunning = new AtomicBoolean();
                AtomicReference<Object> answer = new AtomicReference<>("not returned");
                Thread asker = new Thread(() -> {
                    answer.set(timer.engine().askDriver(d -> {
                        started.countDown();
                        try { // long past the asker's bound of 1 ms: an asker that withdraws returns meanwhile
                            returnedWhileRunning.set(askerReturned.await(500, TimeUnit.MILLISECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return "ran";
                    }, TimeUnit.MILLISECONDS.toNanos(1)));
                    askerReturned.countDown();
                }, "asker");
                asker.start();
                asker.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(asker.isAlive()).isFalse();
                if (started.getCount() == 0) { // the driver took it before the bound: the asker waits for it
                    assertThat(returnedWhileRunning).as("the asker returned while its work ran").isFalse();
                    assertThat(answer.get()).isEqualTo("ran");
                } else {
                    assertThat(answer.get()).isNull();
                }
            } finally {
                reaper.close();
            }
        }
    }
}
