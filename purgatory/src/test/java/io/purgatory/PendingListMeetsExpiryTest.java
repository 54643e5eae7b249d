package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.PendingListTest.Op;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code SOONEST_DUE_FIRST} read from the timer (PendingList.fromTimer) meeting expiries: an
 * operation the timer has expired but whose expiry has not run yet (held by the expiration
 * executor) is pending, and the soonest due of all; so is one watched whose submission has not put
 * it on the timer yet (its second try runs).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard
class PendingListMeetsExpiryTest {

    @Test
    @Disabled("seen and left (Purgatory.listPending's javadoc, docs/reliability.md): the timer's read does not"
            + " list an operation the timer expired whose expiry waits on the executor; the shards' walk does")
    void listPending_soonestDueWhileAnExpiryWaitsOnTheExecutor_listsThatOperationFirst() throws Exception {
        ConcurrentLinkedQueue<Runnable> held = new ConcurrentLinkedQueue<>();
        try (DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("held-expiry")
                .expirationExecutor(held::add).build()) {
            Op due = new Op(1);
            Op later = new Op(3_600_000);
            purgatory.tryCompleteElseWatch(later, List.of("later"));
            purgatory.tryCompleteElseWatch(due, List.of("due"));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (held.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(held).hasSize(1); // the timer handed the expiry of `due` over; it has not run
            assertThat(due.isCompleted()).isFalse();
            assertThat(purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("due", "later");
            assertThat(purgatory.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .as("the pending operation soonest due: expired by the timer, its expiry not yet run")
                    .containsExactly("due");
            for (Runnable r; (r = held.poll()) != null; ) {
                r.run();
            }
            assertThat(due.isCompleted()).isTrue();
            assertThat(purgatory.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("later");
        }
    }

    @Test
    @Disabled("seen and left (an operation submitted while the list reads may be missed): the timer's read"
            + " does not list one watched whose submission has not scheduled it yet (its second try runs)")
    void listPending_soonestDueWhileASubmissionsSecondTryRuns_listsThatOperationFirst() throws Exception {
        try (DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("mid-submission")
                .build()) {
            CountDownLatch inSecondTry = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger tries = new AtomicInteger();
            Op mid = new Op(1_000) {
                @Override
                protected boolean tryComplete() {
                    if (tries.incrementAndGet() == 2) { // watched now, not yet on the timer
                        inSecondTry.countDown();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return false;
                }
            };
            purgatory.tryCompleteElseWatch(new Op(3_600_000), List.of("later"));
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread submitter = new Thread(() -> {
                try {
                    purgatory.tryCompleteElseWatch(mid, List.of("mid"));
                } catch (Throwable t) {
                    failed.set(t);
                }
            }, "submitter");
            submitter.start();
            try {
                assertThat(inSecondTry.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                        .containsExactly("mid", "later");
                assertThat(purgatory.listPending(1, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                        .as("the pending operation soonest due: watched, its submission's second try running")
                        .containsExactly("mid");
            } finally {
                release.countDown();
                submitter.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(failed.get()).isNull();
        }
    }
}
