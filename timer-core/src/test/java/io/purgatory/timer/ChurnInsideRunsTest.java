package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tasks that, while they run on the driving thread, add, cancel and re-add other tasks (those of
 * the bucket being flushed, those a coarser wheel is moving down or cascading ahead, and new
 * ones), on both timers with a manual clock and a small wheel, so that every step crosses
 * buckets and levels. Checked against a model that follows the churn as it happens: each task
 * runs once per schedule, exactly when the clock reaches the end of its deadline's tick, and a
 * task cancelled before its run never runs.
 */
class ChurnInsideRunsTest {

    static Stream<Arguments> timers() {
        List<Arguments> cases = new ArrayList<>();
        for (int seed = 0; seed < 12; seed++) {
            cases.add(Arguments.of(seed, seed % 2 == 0));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "seed {0}, manual timer {1}")
    @MethodSource("timers")
    void advanceClock_runsChurningOtherTasks_eachRunsOncePerScheduleExactlyAtItsTick(int seed, boolean manual)
            throws Exception {
        new Churn(seed, manual).execute(1_500);
    }

    /** The model's deadline of a task added with a delay of zero or less: it runs inside add. */
    private static final long DUE_NOW = Long.MIN_VALUE;

    private static final class Churn {
        final Random random;
        final long tickMs;
        final ManualClock clock = new ManualClock(1_000_000L);
        final long originNanos = clock.nanoTime();
        final Timer timer;
        final List<ChurnTask> tasks = new ArrayList<>();
        /** Scheduled task to its deadline in ms since the origin. */
        final Map<ChurnTask, Long> scheduled = new HashMap<>();
        final List<String> breaches = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        /**
         * Tasks the driver may have expired already in this advance (SystemTimer hands a due batch
         * over after expiring all of it): re-added or cancelled from a run before their own run,
         * they may still run once on the schedule that had expired (TimerTask T1).
         */
        final java.util.Set<ChurnTask> expiredBeforeTheChurn = new java.util.HashSet<>();
        long nowMs;
        int depth;

        Churn(int seed, boolean manual) {
            this.random = new Random(0xC4A2_0000L + seed);
            this.tickMs = 1L + seed % 3;
            int wheelSize = 2 + seed % 4;
            TaskErrorHandler rethrow = (task, error) -> breaches.add("task threw: " + error);
            this.timer = manual ? new ManualTimer(clock, tickMs, wheelSize, rethrow)
                    : SystemTimer.builder("churn").settings(TimerSettings.DEFAULT.withTickMs(tickMs)
                            .withWheelSize(wheelSize)).clock(clock)
                            .executor(Runnable::run).errorHandler(rethrow).build();
        }

        final class ChurnTask extends TimerTask {
            final int id;

            ChurnTask(int id, long delayMs) {
                super(delayMs);
                this.id = id;
            }

            @Override
            public void run() {
                long at = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - originNanos);
                log.add("run " + this + " at " + at);
                Long deadline = scheduled.get(this);
                boolean due = deadline != null && (deadline == DUE_NOW || firesAt(deadline) <= at);
                if (!due && expiredBeforeTheChurn.remove(this)) {
                    deadline = DUE_NOW; // the run of the schedule that had expired
                } else {
                    scheduled.remove(this);
                }
                if (deadline == null) {
                    breaches.add(this + " ran unscheduled at " + at);
                } else if (at != nowMs || (deadline != DUE_NOW && firesAt(deadline) > at)) {
                    breaches.add(this + " due " + deadline + " ran at " + at + " (clock " + nowMs + ")");
                }
                if (depth < 3) {
                    depth++;
                    try {
                        for (int i = random.nextInt(4); i > 0; i--) {
                            churn();
                        }
                    } finally {
                        depth--;
                    }
                }
            }

            @Override
            public String toString() {
                return "task " + id;
            }
        }

        private long firesAt(long deadlineMs) {
            return Math.floorDiv(deadlineMs + tickMs - 1, tickMs) * tickMs;
        }

        private long randomDelay() {
            int kind = random.nextInt(100);
            if (kind < 8) {
                return -random.nextInt(3); // due now: runs inside add
            } else if (kind < 60) {
                return 1L + random.nextInt(8);
            } else if (kind < 90) {
                return 1L + random.nextInt(200);
            } else if (kind < 97) {
                return 1L + random.nextInt(50_000);
            }
            return Long.MAX_VALUE;
        }

        /** One random add, re-add or cancel, from the test or from inside a run. */
        private void churn() {
            int kind = random.nextInt(100);
            if (kind < 35 || tasks.isEmpty()) {
                ChurnTask task = new ChurnTask(tasks.size(), randomDelay());
                tasks.add(task);
                add(task);
            } else if (kind < 65) {
                add(tasks.get(random.nextInt(tasks.size())));
            } else {
                ChurnTask task = tasks.get(random.nextInt(tasks.size()));
                Long deadline = scheduled.remove(task);
                boolean wasScheduled = deadline != null;
                boolean cancelled = task.cancel();
                if (!cancelled && wasScheduled && depth > 0 && firesAt(deadline) <= nowMs) {
                    expiredBeforeTheChurn.add(task); // already expired by the driver: it runs
                    wasScheduled = false;
                }
                log.add("cancel " + task + " -> " + cancelled + " at " + nowMs + " depth " + depth);
                if (cancelled != wasScheduled) {
                    breaches.add("cancel of " + task + " returned " + cancelled + " at " + nowMs);
                }
            }
        }

        private void add(ChurnTask task) {
            Long previous = scheduled.get(task);
            if (depth > 0 && previous != null && previous != DUE_NOW && firesAt(previous) <= nowMs) {
                expiredBeforeTheChurn.add(task);
            }
            if (task.delayMs() > 0) {
                scheduled.put(task, nowMs + Math.min(task.delayMs(), Timer.MAX_DELAY_MS));
            } else {
                scheduled.put(task, DUE_NOW); // runs inside add, which the run checks
            }
            log.add("add " + task + " delay " + task.delayMs() + " at " + nowMs + " depth " + depth
                    + " clockMs " + TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - originNanos));
            timer.add(task);
        }

        void execute(int steps) throws Exception {
            try {
                for (int step = 0; step < steps; step++) {
                    if (random.nextInt(100) < 40) {
                        churn();
                    } else {
                        int jump = random.nextInt(100);
                        long ms = jump < 70 ? random.nextInt(3)
                                : jump < 97 ? random.nextInt(300) : random.nextInt(100_000);
                        nowMs += ms;
                        log.add("advance " + ms + " to " + nowMs);
                        if (timer instanceof ManualTimer manual) {
                            manual.advanceClock(ms);
                        } else {
                            clock.advanceMillis(ms);
                            timer.advanceClock(0);
                        }
                        expiredBeforeTheChurn.clear();
                        for (Map.Entry<ChurnTask, Long> e : scheduled.entrySet()) {
                            if (e.getValue() == DUE_NOW || firesAt(e.getValue()) <= nowMs) {
                                breaches.add(e.getKey() + " due " + e.getValue() + " did not run by " + nowMs);
                            }
                        }
                    }
                    if (!breaches.isEmpty()) {
                        String who = breaches.get(0).split(" ")[1];
                        log.stream().filter(l -> l.contains("task " + who + " ") || l.startsWith("advance"))
                                .forEach(System.out::println);
                    }
                    assertThat(breaches).as("step %d", step).isEmpty();
                    assertThat(timer.size()).as("size at step %d", step).isEqualTo(scheduled.size());
                    for (ChurnTask task : tasks) {
                        assertThat(task.isScheduled()).as("%s at step %d", task, step)
                                .isEqualTo(scheduled.containsKey(task));
                    }
                }
                if (timer instanceof ManualTimer manual) {
                    manual.checkInvariants();
                } else {
                    ((SystemTimer) timer).checkInvariants();
                }
            } finally {
                timer.close();
            }
        }
    }
}
