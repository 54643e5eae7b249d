package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random adds, reschedules, cancels and clock moves on a {@link ManualTimer}, checked after every
 * step against a reference model: a map from task to deadline. Times are in ms since the timer
 * was created (its origin). A task with deadline {@code d} runs at the first advance that brings
 * the clock to {@code ceil(d / tickMs) * tickMs}: the finest wheel rounds up to its tick
 * (TimingWheel's notes), coarser wheels hand tasks down to it, and a delay of zero or less runs
 * the task inside {@code add}.
 */
class TimerModelTest {

    private static final long[] TICKS_MS = {1L, 3L, 10L};
    private static final int[] WHEEL_SIZES = {2, 3, 8, 20};
    private static final long NEAR_MAX_NANOS = Long.MAX_VALUE - TimeUnit.SECONDS.toNanos(1000);
    private static final int MAX_TASKS = 300;

    static Stream<Integer> seeds() {
        return IntStream.range(0, 20).boxed();
    }

    static Stream<Integer> manySeeds() {
        return IntStream.range(20, 220).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomOperations_seed_matchTheReferenceModelAfterEveryStep(int seed) {
        new Run(seed, 2_000).execute();
    }

    @Tag("slow")
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("manySeeds")
    void randomOperations_manySeedsAndSteps_matchTheReferenceModelAfterEveryStep(int seed) {
        new Run(seed, 20_000).execute();
    }

    /** One randomized run: a timer, its model, and the tasks that fired during the current step. */
    private static final class Run {
        final int seed;
        final int steps;
        final Random random;
        final long tickMs;
        final int wheelSize;
        final long startNanos;
        final ManualClock clock;
        final ManualTimer timer;
        final List<ModelTask> tasks = new ArrayList<>();
        /** The model: scheduled task to its deadline, in ms since the origin. */
        final Map<ModelTask, Long> scheduled = new HashMap<>();
        /** What ran during the current step, with the clock reading when it ran. */
        final List<ModelTask> firedNow = new ArrayList<>();
        final List<Long> firedAtMs = new ArrayList<>();
        long nowMs;
        int step;

        Run(int seed, int steps) {
            this.seed = seed;
            this.steps = steps;
            this.random = new Random(0x5EED_0000L + seed);
            this.tickMs = TICKS_MS[seed % TICKS_MS.length];
            this.wheelSize = WHEEL_SIZES[(seed / TICKS_MS.length) % WHEEL_SIZES.length];
            this.startNanos = seed % 2 == 0 ? 0L : NEAR_MAX_NANOS;
            this.clock = new ManualClock(startNanos);
            this.timer = new ManualTimer(clock, tickMs, wheelSize, (task, error) -> {
                throw new AssertionError("no model task throws", error);
            });
        }

        final class ModelTask extends TimerTask {
            final int id;

            ModelTask(int id, long delayMs) {
                super(delayMs);
                this.id = id;
            }

            @Override
            public void run() {
                firedNow.add(this);
                firedAtMs.add(TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNanos));
            }

            @Override
            public String toString() {
                return "task " + id + " (delay " + delayMs() + ")";
            }
        }

        void execute() {
            try {
                for (step = 0; step < steps; step++) {
                    int op = random.nextInt(100);
                    if (op < 30 || tasks.isEmpty()) {
                        if (tasks.size() < MAX_TASKS) {
                            ModelTask task = new ModelTask(tasks.size(), randomDelay());
                            tasks.add(task);
                            add(task);
                        } else {
                            add(randomTask());
                        }
                    } else if (op < 45) {
                        add(randomTask());
                    } else if (op < 60) {
                        cancel(randomTask());
                    } else {
                        advance(randomAdvance());
                    }
                    checkAll();
                }
                finish();
            } finally {
                timer.close();
            }
        }

        private ModelTask randomTask() {
            return tasks.get(random.nextInt(tasks.size()));
        }

        private long randomDelay() {
            int kind = random.nextInt(100);
            if (kind < 10) {
                return -random.nextInt(20); // zero or less: runs inside add
            } else if (kind < 55) {
                return 1L + random.nextInt(50);
            } else if (kind < 80) {
                return 1L + random.nextInt(5_000);
            } else if (kind < 97) {
                return 1L + random.nextInt(10_000_000);
            }
            return random.nextBoolean() ? Long.MAX_VALUE : Timer.MAX_DELAY_MS - random.nextInt(3);
        }

        private long randomAdvance() {
            int kind = random.nextInt(100);
            if (kind < 15) {
                return 0;
            } else if (kind < 45) {
                return 1;
            } else if (kind < 85) {
                return 2L + random.nextInt(60);
            } else if (kind < 97) {
                return random.nextInt(10_000);
            }
            return random.nextInt(20_000_000);
        }

        private String where() {
            return "seed " + seed + ", step " + step + ", tick " + tickMs + ", wheel " + wheelSize
                    + ", clock " + nowMs + " ms";
        }

        private void add(ModelTask task) {
            List<ModelTask> expected = new ArrayList<>();
            if (task.delayMs() <= 0) {
                scheduled.remove(task); // cannot be scheduled: its delay never changes
                expected.add(task);
            } else {
                scheduled.put(task, nowMs + Math.min(task.delayMs(), Timer.MAX_DELAY_MS));
            }
            Map<ModelTask, Long> deadlines = new HashMap<>();
            expected.forEach(t -> deadlines.put(t, nowMs));

            timer.add(task);

            checkFired(expected, deadlines);
            assertThat(task.isScheduled()).as(where()).isEqualTo(task.delayMs() > 0);
        }

        private void cancel(ModelTask task) {
            boolean wasScheduled = scheduled.remove(task) != null;

            assertThat(task.cancel()).as("cancel %s at %s", task, where()).isEqualTo(wasScheduled);

            checkFired(List.of(), Map.of());
            assertThat(task.isScheduled()).as(where()).isFalse();
            if (wasScheduled) {
                assertThat(task.isCancelled()).as(where()).isTrue();
            }
        }

        private void advance(long ms) {
            nowMs += ms;
            List<ModelTask> expected = new ArrayList<>();
            Map<ModelTask, Long> deadlines = new HashMap<>();
            scheduled.forEach((task, deadline) -> {
                if (firesAt(deadline) <= nowMs) {
                    expected.add(task);
                    deadlines.put(task, deadline);
                }
            });
            expected.forEach(scheduled::remove);

            timer.advanceClock(ms);

            checkFired(expected, deadlines);
            for (int i = 1; i < firedNow.size(); i++) {
                assertThat(firesAt(deadlines.get(firedNow.get(i))))
                        .as("runs in deadline order: %s at %s", firedNow, where())
                        .isGreaterThanOrEqualTo(firesAt(deadlines.get(firedNow.get(i - 1))));
            }
        }

        /** When a task with this deadline runs: at the end of its tick of the finest wheel. */
        private long firesAt(long deadlineMs) {
            return Math.floorDiv(deadlineMs + tickMs - 1, tickMs) * tickMs;
        }

        private void checkFired(List<ModelTask> expected, Map<ModelTask, Long> deadlines) {
            assertThat(firedNow).as("ran during %s", where()).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            for (int i = 0; i < firedNow.size(); i++) {
                ModelTask task = firedNow.get(i);
                assertThat(firedAtMs.get(i)).as("%s never runs early, %s", task, where())
                        .isEqualTo(nowMs)
                        .isGreaterThanOrEqualTo(deadlines.get(task));
            }
            firedNow.clear();
            firedAtMs.clear();
        }

        private void checkAll() {
            assertThat(timer.size()).as("size at %s", where()).isEqualTo(scheduled.size());
            timer.checkInvariants();
            if (step % 50 == 0) {
                for (ModelTask task : tasks) {
                    assertThat(task.isScheduled()).as("%s at %s", task, where())
                            .isEqualTo(scheduled.containsKey(task));
                }
            }
        }

        /** Runs everything with a finite deadline, then cancels the rest. */
        private void finish() {
            long lastFinite = scheduled.values().stream()
                    .filter(d -> d - nowMs < Timer.MAX_DELAY_MS / 2)
                    .mapToLong(this::firesAt).max().orElse(nowMs);
            advance(lastFinite - nowMs);
            checkAll();
            Set<ModelTask> remaining = new HashSet<>(scheduled.keySet());
            for (ModelTask task : tasks) {
                assertThat(task.cancel()).as("%s at the end", task).isEqualTo(remaining.contains(task));
            }
            scheduled.clear();
            advance(0);
            assertThat(timer.size()).isZero();
            assertThat(timer.checkInvariants()).as("tasks still linked").isZero();
        }
    }
}
