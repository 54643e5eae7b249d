package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Per-tenant bounds ({@code tenants(tenantOf, maxPendingPerTenant)}): a tenant at its bound is
 * refused with a {@link TenantFullException} naming it and the bound, the others go on; each
 * settle (completion, expiry, cancel, close) and each failed submission frees its tenant's slot
 * exactly once; a tenant is held only while it has pending operations (Admission S1); the tenant
 * function is user code: what it throws fails only the submission that asked.
 */
class TenantBoundTest {

    /** An operation of a tenant; completes when told to. */
    static final class Op extends DelayedOperation {
        final String tenant;
        volatile boolean completable;

        Op(String tenant, long delayMs) {
            super(delayMs);
            this.tenant = tenant;
        }

        @Override
        protected boolean tryComplete() {
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
        }

        @Override
        protected void onExpiration() {
        }
    }

    private final ManualTimer timer = new ManualTimer();

    private DelayedOperationPurgatory<Op> purgatory(int maxPendingPerTenant) {
        return DelayedOperationPurgatory.<Op>builder("tenanted").timer(timer)
                .tenants(op -> op.tenant, maxPendingPerTenant).build();
    }

    @Test
    void aTenantAtItsBound_isRefusedNamingItAndTheBound_whileAnotherGoesOn() {
        try (DelayedOperationPurgatory<Op> p = purgatory(2)) {
            Op first = new Op("flood", 1_000);
            p.tryCompleteElseWatch(first, List.of("k1"));
            p.tryCompleteElseWatch(new Op("flood", 1_000), List.of("k2"));
            Op refused = new Op("flood", 1_000);

            assertThatThrownBy(() -> p.tryCompleteElseWatch(refused, List.of("k3")))
                    .isInstanceOfSatisfying(TenantFullException.class, e -> {
                        assertThat(e.tenant()).isEqualTo("flood");
                        assertThat(e.maxPending()).isEqualTo(2);
                        assertThat(e.getStackTrace()).as("a refusal fills no trace").isEmpty();
                    })
                    .isInstanceOf(PurgatoryFullException.class)
                    .hasMessage("tenant 'flood' of purgatory 'tenanted' is full: 2 operations pending"
                            + " (maxPendingPerTenant=2)");
            assertThat(refused.isCompleted()).as("the refused operation was not touched").isFalse();
            p.tryCompleteElseWatch(new Op("quiet", 1_000), List.of("k1"));
            assertThat(p.numDelayed()).isEqualTo(3);
            assertThat(p.stats().rejected()).isEqualTo(1);
            assertThat(p.topTenants(10)).containsExactly(new TenantUsage("flood", 2, 1),
                    new TenantUsage("quiet", 1, 0));

            first.cancel();
            p.tryCompleteElseWatch(refused, List.of("k3")); // nothing of the refusal stuck to it
            assertThat(p.numDelayed()).isEqualTo(3);
            assertThat(p.topTenants(1)).containsExactly(new TenantUsage("flood", 2, 1));
        }
    }

    @Test
    void everySettle_freesItsTenantsSlot_andATenantWithNoneLeftIsForgotten() {
        DelayedOperationPurgatory<Op> p = purgatory(4); // closed by the test: the close frees the last slot
        Op completed = new Op("t", 5_000);
        Op expired = new Op("t", 10);
        Op cancelled = new Op("t", 5_000);
        Op closed = new Op("t", 5_000);
        for (Op op : List.of(completed, expired, cancelled, closed)) {
            p.tryCompleteElseWatch(op, List.of("k"));
        }
        assertThat(p.topTenants(1)).containsExactly(new TenantUsage("t", 4, 0));

        completed.completable = true;
        p.checkAndComplete("k");
        timer.advanceClock(10);
        cancelled.cancel();
        assertThat(p.topTenants(1)).containsExactly(new TenantUsage("t", 1, 0));
        for (int i = 0; i < 3; i++) { // the three slots freed are free again
            p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k"));
        }
        assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k")))
                .isInstanceOf(TenantFullException.class);

        p.close();
        assertThat(closed.outcome()).isEqualTo(Outcome.EXPIRED);
        assertThat(p.topTenants(10)).as("every slot freed, the tenant forgotten (S1)").isEmpty();
        assertThat(p.engine().admission().tenantCount()).isZero();
    }

    @Test
    void submit_ofAnOperationCompletedAtOnce_holdsNoSlot() {
        try (DelayedOperationPurgatory<Op> p = purgatory(1)) {
            for (int i = 0; i < 3; i++) {
                Op op = new Op("t", 5_000);
                op.completable = true;
                assertThat(p.tryCompleteElseWatch(op, List.of("k"))).isTrue();
            }
            p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k"));
            assertThat(p.topTenants(1)).containsExactly(new TenantUsage("t", 1, 0));
        }
    }

    @Test
    void aFailedSubmission_freesItsTenantsSlot_andEndsItsObservedWaitOnce() {
        List<WaitOutcome> ended = new CopyOnWriteArrayList<>();
        WaitObserver observer = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                return "handle";
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                ended.add(outcome);
            }
        };
        AtomicInteger hashCodes = new AtomicInteger();
        Object badKey = new Object() { // passes the submission's check of its keys, then fails as it is watched
            @Override
            public int hashCode() {
                if (hashCodes.incrementAndGet() % 2 == 0) {
                    throw new IllegalStateException("bad key");
                }
                return 7;
            }
        };
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("failing").timer(timer)
                .tenants(op -> op.tenant, 1).observer(observer).build()) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k", badKey)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(ended).containsExactly(WaitOutcome.FAILED, WaitOutcome.FAILED, WaitOutcome.FAILED);
            assertThat(p.topTenants(1)).as("no slot held by the failed submissions").isEmpty();
            p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k"));
        }
    }

    @Test
    void theTenantFunctionFailing_failsOnlyThatSubmission_holdingNoSlot() {
        RuntimeException down = new IllegalStateException("directory down");
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("fn").timer(timer).maxPending(1)
                .tenants(op -> {
                    if (op.tenant.equals("bad")) {
                        throw down;
                    }
                    if (op.tenant.equals("error")) {
                        throw new AssertionError("an Error");
                    }
                    return op.tenant.equals("none") ? null : op.tenant;
                }, 1).build()) {
            Op bad = new Op("bad", 5_000);
            assertThatThrownBy(() -> p.tryCompleteElseWatch(bad, List.of("k")))
                    .isInstanceOf(IllegalArgumentException.class).hasCause(down)
                    .hasMessageContaining("the tenant function threw");
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("error", 5_000), List.of("k")))
                    .isInstanceOf(IllegalArgumentException.class).hasCauseInstanceOf(AssertionError.class);
            assertThat(bad.isCompleted()).isFalse();
            assertThat(p.stats().rejected()).as("not a refusal").isZero();

            Op untenanted = new Op("none", 5_000); // a null tenant: only maxPending bounds it
            p.tryCompleteElseWatch(untenanted, List.of("k"));
            assertThat(p.topTenants(5)).isEmpty();
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k")))
                    .isExactlyInstanceOf(PurgatoryFullException.class);
        }
    }

    @Test
    void keyedWaits_tenantOfTheFirstKey_overItsBoundAFailedFuture() throws Exception {
        KeyedWaits<String, String> waits = KeyedWaits.builder("keyed").timer(timer)
                .tenants((String key) -> key.substring(0, key.indexOf(':')), 1).build();
        try (waits) {
            CompletableFuture<String> first = waits.await("acme:order-1", Duration.ofSeconds(5));
            CompletableFuture<String> refused = waits.onAny(List.of("acme:order-2", "zeta:order-9"))
                    .await(Duration.ofSeconds(5));
            CompletableFuture<String> other = waits.onAny(List.of("zeta:order-3", "acme:order-4"))
                    .await(Duration.ofSeconds(5));

            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).hasCauseInstanceOf(TenantFullException.class)
                    .hasMessageContaining("tenant 'acme'");
            assertThat(other).isNotDone();
            waits.complete("acme:order-1", "paid");
            assertThat(first).isCompletedWithValue("paid");
            assertThat(waits.await("acme:order-5", Duration.ofSeconds(5))).as("the slot freed").isNotDone();
            assertThat(waits.topTenants(5)).containsExactlyInAnyOrder(new TenantUsage("acme", 1, 0),
                    new TenantUsage("zeta", 1, 0));
        }
    }

    @Test
    void topTenants_mostPendingFirst_limited_andShownByTheRenderer() {
        try (DelayedOperationPurgatory<Op> p = purgatory(100)) {
            for (int t = 1; t <= 5; t++) {
                for (int i = 0; i < t; i++) {
                    p.tryCompleteElseWatch(new Op("tenant-" + t, 5_000), List.of("k"));
                }
            }
            assertThat(p.topTenants(3)).extracting(TenantUsage::tenant, TenantUsage::pending)
                    .containsExactly(tuple("tenant-5", 5), tuple("tenant-4", 4), tuple("tenant-3", 3));
            assertThat(p.topTenants(1, KeyRenderer.HIDDEN)).extracting(TenantUsage::tenant).containsExactly("*");
            try (LogCapture log = new LogCapture(DelayedOperationPurgatory.class)) {
                assertThat(p.topTenants(1, tenant -> {
                    throw new IllegalStateException("renderer down");
                })).extracting(TenantUsage::tenant).containsExactly("?");
                assertThat(log.events()).singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                        .contains("its KeyRenderer threw"));
            }
            assertThat(p.listPending(1, PendingOrder.OLDEST_FIRST)).extracting(PendingOperation::tenant)
                    .containsExactly("tenant-1");
            assertThat(p.topTenants(0)).isEmpty();
            assertThatThrownBy(() -> p.topTenants(-1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("limit must be >= 0: -1");
        }
        try (DelayedOperationPurgatory<Op> untenanted = DelayedOperationPurgatory.<Op>builder("plain").timer(timer)
                .build()) {
            untenanted.tryCompleteElseWatch(new Op("t", 5_000), List.of("k"));
            assertThat(untenanted.topTenants(5)).isEmpty();
            assertThat(untenanted.listPending(1, PendingOrder.OLDEST_FIRST).get(0).tenant()).isNull();
        }
    }

    @Test
    void tenants_badArguments_areRefusedNamingThem() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.<Op>builder("x").tenants(null, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("tenantOf");
        assertThatThrownBy(() -> DelayedOperationPurgatory.<Op>builder("x").tenants(op -> op.tenant, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxPendingPerTenant must be >= 1: 0");
        assertThatThrownBy(() -> KeyedWaits.builder("x").tenants(null, 1))
                .isInstanceOf(NullPointerException.class).hasMessage("tenantOfKey");
    }

    @Test
    void submitAndSettle_onManyThreads_endWithEverySlotFreedAndNoTenantHeld() throws Exception {
        int threads = 4;
        int perThread = 5_000;
        try (DelayedOperationPurgatory<Op> p = purgatory(3)) {
            AtomicInteger refusedCount = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> racers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                racers.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            String key = "k" + (i % 7);
                            Op op = new Op("tenant-" + ((i + index) % 3), 5_000);
                            try {
                                p.tryCompleteElseWatch(op, List.of(key));
                            } catch (TenantFullException refused) {
                                refusedCount.incrementAndGet();
                            }
                            if (i % 3 == 0) {
                                op.cancel();
                            } else {
                                op.completable = true;
                                p.checkAndComplete(key);
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            racers.forEach(Thread::start);
            start.countDown();
            for (Thread racer : racers) {
                racer.join();
            }
            for (int k = 0; k < 7; k++) { // the last ones made completable after their key's final check
                p.checkAndComplete("k" + k);
            }
            PurgatoryStats stats = p.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.rejected()).isEqualTo(refusedCount.get());
            assertThat(stats.completed() + stats.completedAtOnce() + stats.cancelled())
                    .isEqualTo((long) threads * perThread - refusedCount.get());
            assertThat(p.topTenants(10)).as("every slot freed, every tenant forgotten").isEmpty();
            assertThat(p.engine().admission().tenantCount()).isZero();
            p.engine().checkInvariants();
        }
    }
}
