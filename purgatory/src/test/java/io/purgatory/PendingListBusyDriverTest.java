package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.PendingListTest.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code SOONEST_DUE_FIRST} when the timer's driver cannot answer: blocked handing an expiry to an
 * executor that does not take it (the list waits its bound, then walks every list), asked by an
 * interrupted thread, and racing the purgatory's close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard
class PendingListBusyDriverTest {

    @Test
    void listPending_whileTheDriverIsBlockedInTheExecutor_walksTheLists_andListsTheOneInItsHands() throws Exception {
        CountDownLatch inExecute = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("blocked-driver")
                .expirationExecutor(r -> {
                    inExecute.countDown(); // the driver, holding its lock, waits here
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    r.run();
                }).build()) {
            purgatory.tryCompleteElseWatch(new Op(3_600_000), List.of("later"));
            purgatory.tryCompleteElseWatch(new Op(3_500_000), List.of("sooner"));
            Op due = new Op(1);
            purgatory.tryCompleteElseWatch(due, List.of("due"));
            try {
                assertThat(inExecute.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                        .containsExactly("due", "sooner");
            } finally {
                release.countDown();
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!due.isCompleted() && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST)).extracting(p -> p.keys().get(0))
                    .containsExactly("sooner", "later");
        }
    }

    @Test
    void listPending_byAnInterruptedThread_listsFromTheParkedDriver_andKeepsTheInterrupt() {
        try (DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("interrupted-lister")
                .build()) {
            for (int k = 0; k < 5; k++) {
                purgatory.tryCompleteElseWatch(new Op(3_600_000 - 1_000 * k), List.of("k" + k)); // 1 s apart: no
                // jitter of the submissions on the real clock (the first starts the driver) reorders their due times
            }
            Thread.currentThread().interrupt();
            List<PendingOperation> listed;
            try {
                listed = purgatory.listPending(2, PendingOrder.SOONEST_DUE_FIRST);
            } finally {
                assertThat(Thread.interrupted()).isTrue();
            }
            assertThat(listed).extracting(p -> p.keys().get(0)).containsExactly("k4", "k3");
        }
    }

    @Test
    void listPending_racingThePurgatorysClose_neverThrows_andListsNothingOnceClosed() throws Exception {
        DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("closing-lister").build();
        for (int k = 0; k < 500; k++) {
            purgatory.tryCompleteElseWatch(new Op(3_600_000 + k), List.of("k" + k, "shared"));
        }
        AtomicBoolean closed = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Integer> sizesAfterClose = new ArrayList<>();
        CountDownLatch listing = new CountDownLatch(1);
        Thread lister = new Thread(() -> {
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < until) { // until it has listed a few times after the close returned
                    boolean wasClosed = closed.get();
                    listing.countDown();
                    int size = purgatory.listPending(20, PendingOrder.SOONEST_DUE_FIRST).size();
                    if (wasClosed) {
                        sizesAfterClose.add(size);
                        if (sizesAfterClose.size() > 3) {
                            return;
                        }
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "lister");
        lister.start();
        assertThat(listing.await(30, TimeUnit.SECONDS)).isTrue();
        purgatory.close();
        closed.set(true);
        lister.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(lister.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(sizesAfterClose).containsOnly(0);
    }
}
