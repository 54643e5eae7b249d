package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TimerEngine E7: a push that crosses its stripe's weight while no thread drives drains the inbox
 * on the pushing thread, a user's. That drain places entries and unlinks cancelled ones; it never
 * expires one: an entry already due when it is taken off the inbox is left for the driver, so
 * no task runs on, nor is handed over by, the thread that was only adding a task.
 *
 * <p>Deterministic: the clock reading of the add whose push crosses the weight runs the driver
 * (on its own thread) past that add's deadline before the add pushes, as a preemption between
 * the two would.
 */
class HelpDrainNeverExpiresTest {

    private static final long TIMEOUT_SECONDS = 30;

    private final ExecutorService driverThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "driver"));
    private SystemTimer timer;

    @AfterEach
    void tearDown() {
        if (timer != null) {
            timer.close();
        }
        driverThread.shutdownNow();
    }

    @Test
    void add_crossesAStripeBatchWhileItsOwnTaskIsAlreadyDue_taskRunsOnTheDriverNotOnTheAddingThread()
            throws Exception {
        AtomicLong nanos = new AtomicLong();
        AtomicReference<Runnable> onNextRead = new AtomicReference<>();
        Clock clock = () -> {
            long reading = nanos.get();
            Runnable hook = onNextRead.getAndSet(null);
            if (hook != null) {
                hook.run(); // between the add's reading and its push
            }
            return reading;
        };
        List<Thread> handedOffOn = new CopyOnWriteArrayList<>();
        timer = SystemTimer.builder("help-drain").clock(clock)
                .executor(command -> { // runs the hand-off inline, as Runnable::run or a refusal would
                    handedOffOn.add(Thread.currentThread());
                    command.run();
                })
                .build();
        // this thread's stripe, one push short of a batch (Inbox I2), but for the two adds below
        int batch = Inbox.DEAD_BATCH * Inbox.FRESH_PER_DEAD;
        for (int i = 0; i < batch - 2; i++) {
            timer.add(new CountingTask(1_000_000));
        }
        CountingTask farOff = new CountingTask(1_000_000);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        CountingTask due = new CountingTask(5, () -> ranOn.add(Thread.currentThread()));
        onNextRead.set(() -> {
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
            drive(); // the wheel's time passes the deadline `due` is given: 5
            timer.add(farOff); // on the inbox, for the drain to place
        });

        timer.add(due); // its push crosses the weight, with no thread driving

        assertThat(farOff.slot).as("the adding thread drained the inbox: farOff is placed").isNotZero();
        assertThat(handedOffOn).as("hand-offs on the adding thread").isEmpty();
        assertThat(due.runs()).isZero();
        assertThat(due.isScheduled()).isTrue();
        assertThat(timer.size()).isEqualTo(batch);

        Thread driver = drive();

        assertThat(ranOn).containsExactly(driver);
        assertThat(handedOffOn).containsExactly(driver);
        assertThat(timer.size()).isEqualTo(batch - 1);
        assertThat(timer.checkInvariants()).isEqualTo(batch - 1);
    }

    /** One advance of the timer on the driver's thread, which it returns. */
    private Thread drive() {
        try {
            return driverThread.submit(() -> {
                timer.advanceClock(0);
                return Thread.currentThread();
            }).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
