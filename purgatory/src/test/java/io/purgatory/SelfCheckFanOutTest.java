package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Promise 4 of docs/reliability.md: a tryComplete that checks its own keys is tried at most three
 * times per check. The bound is kept per claim (OperationState O4), so when two operations on one
 * key both check it, each nested check of the other takes a fresh claim with a fresh bound: each
 * operation is tried 12 times in one check, and with n such operations the tries grow faster than
 * 3^n (n = 6: 122,088 tries of each in one checkAndComplete), which is a spin in practice.
 */
class SelfCheckFanOutTest {

    /** Tries beyond this stop the operations' own checks, so that a broken bound still returns. */
    private static final int CAP = 100_000;

    /** An operation that checks {@code key} of {@code purgatory} on every try and never completes. */
    private static DelayedOperation checking(DelayedOperationPurgatory<DelayedOperation> purgatory, String key,
                                             AtomicInteger tries, AtomicInteger total) {
        return new DelayedCondition(60_000, () -> {
            tries.incrementAndGet();
            if (total.incrementAndGet() < CAP) {
                purgatory.checkAndComplete(key);
            }
            return false;
        });
    }

    @Test
    void checkAndComplete_twoOperationsOnOneKeyEachCheckingIt_eachIsTriedAtMostThreeTimes() {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("fan-out")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger first = new AtomicInteger();
            AtomicInteger second = new AtomicInteger();
            p.tryCompleteElseWatch(checking(p, "k", first, total), List.of("k"));
            p.tryCompleteElseWatch(checking(p, "k", second, total), List.of("k"));
            first.set(0);
            second.set(0);

            p.checkAndComplete("k");

            assertThat(first.get()).as("tries of the first operation in one check").isLessThanOrEqualTo(3);
            assertThat(second.get()).as("tries of the second operation in one check").isLessThanOrEqualTo(3);
        }
    }

    @Test
    void checkAndComplete_sixOperationsOnOneKeyEachCheckingIt_returnsAfterABoundedNumberOfTries() {
        try (DelayedOperationPurgatory<DelayedOperation> p = DelayedOperationPurgatory.builder("fan-out-6")
                .timerEnabled(false).reaperEnabled(false).build()) {
            AtomicInteger total = new AtomicInteger();
            AtomicInteger ignored = new AtomicInteger();
            for (int i = 0; i < 6; i++) {
                p.tryCompleteElseWatch(checking(p, "k", ignored, total), List.of("k"));
            }
            total.set(0);

            p.checkAndComplete("k");

            assertThat(total.get()).as("tries of six operations in one check (3 each at most)")
                    .isLessThanOrEqualTo(6 * 3);
        }
    }
}
