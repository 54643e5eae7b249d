package io.purgatory;

import static io.purgatory.TestThreads.BOUND_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Tenant bounds against observers that throw, in every way a wait ends (Engine N1, N6,
 * Admission S1, promises 11 and 13): completed at once, completed after a watch, expired (on the
 * caller's thread and on expiration threads), cancelled, cancelled for its key, closed (by its
 * purgatory's close, and by its runtime's close from a wait's callback), and a failed
 * submission. Every outcome frees its tenant's slot exactly once, so each tenant comes back to
 * no pending operation and is forgotten, and each observed wait ends once.
 */
class TenantSlotsAtEveryEndTest {

    /** An operation of a tenant; completes when told to; runs {@code onComplete} when it completes. */
    static final class Op extends DelayedOperation {
        final String tenant;
        volatile boolean completable;
        final CountDownLatch done = new CountDownLatch(1);

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
            done.countDown();
        }

        @Override
        protected void onExpiration() {
            done.countDown();
        }

        @Override
        protected void onCancel() {
            done.countDown();
        }
    }

    /**
     * A key whose hashCode throws once the observer saw its wait start: the submission fails after
     * its claim, its slots and its wait owner were taken, and is undone.
     */
    static final class FailingKey {
        volatile boolean failing;

        @Override
        public int hashCode() {
            if (failing) {
                throw new IllegalStateException("no hash");
            }
            return 7;
        }

        @Override
        public boolean equals(Object other) {
            return other == this;
        }
    }

    /** Counts the handles it gives and the ends it is told; throws on every start of tenant "a" and every end. */
    static final class ThrowingObserver implements WaitObserver {
        final AtomicInteger handles = new AtomicInteger();
        final AtomicInteger ends = new AtomicInteger();

        @Override
        public Object started(WaitStart start) {
            for (Object key : start.keys()) {
                if (key instanceof FailingKey failing) {
                    failing.failing = true;
                }
            }
            if (start.keys().get(0).toString().startsWith("a")) {
                throw new IllegalStateException("observer refuses to start");
            }
            handles.incrementAndGet();
            return new Object();
        }

        @Override
        public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
            ends.incrementAndGet();
            throw new IllegalStateException("observer fails to end " + outcome);
        }
    }

    @Test
    void everyEnd_withAnObserverThatThrows_freesItsTenantsSlotOnceAndEndsTheObservedWaitOnce() {
        ManualTimer timer = new ManualTimer();
        ThrowingObserver observer = new ThrowingObserver();
        DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("tenants-ends").timer(timer)
                .tenants(op -> op.tenant, 7).observer(observer).build();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            for (String tenant : List.of("a", "b")) {
                Op atOnce = new Op(tenant, 5_000);
                atOnce.completable = true;
                assertThat(p.tryCompleteElseWatch(atOnce, List.of(tenant + "-k"))).isTrue();
                Op completed = new Op(tenant, 5_000);
                Op expired = new Op(tenant, 10);
                Op cancelled = new Op(tenant, 5_000);
                Op cancelledForKey = new Op(tenant, 5_000);
                Op closed = new Op(tenant, 5_000);
                p.tryCompleteElseWatch(completed, List.of(tenant + "-k"));
                p.tryCompleteElseWatch(expired, List.of(tenant + "-k"));
                p.tryCompleteElseWatch(cancelled, List.of(tenant + "-k"));
                p.tryCompleteElseWatch(cancelledForKey, List.of(tenant + "-other"));
                p.tryCompleteElseWatch(closed, List.of(tenant + "-k"));
                Op failed = new Op(tenant, 5_000);
                assertThatThrownBy(() -> p.tryCompleteElseWatch(failed, List.of(tenant + "-k", new FailingKey())))
                        .isInstanceOf(IllegalArgumentException.class);
                assertThat(p.topTenants(5)).contains(new TenantUsage(tenant, 5, 0));

                completed.completable = true;
                p.checkAndComplete(tenant + "-k");
                timer.advanceClock(10);
                cancelled.cancel();
                assertThat(p.cancelForKey(tenant + "-other")).containsExactly(cancelledForKey);
                assertThat(p.topTenants(5)).as("one slot left, the closed one's")
                        .contains(new TenantUsage(tenant, 1, 0));
            }
            p.close();
            assertThat(p.topTenants(10)).as("every slot freed, every tenant forgotten (S1)").isEmpty();
            assertThat(p.engine().admission().tenantCount()).isZero();
            assertThat(observer.ends.get()).as("each observed wait ended once").isEqualTo(observer.handles.get());
            assertThat(observer.handles.get()).as("b's seven waits, the failed submission's too").isEqualTo(7);
            assertThat(log.events()).hasSize(2 * 7);
        }
    }

    @Test
    void expiries_onExpirationThreadsWithAnObserverThatThrows_freeEveryTenantsSlot() throws Exception {
        ThrowingObserver observer = new ThrowingObserver();
        List<Op> ops = new ArrayList<>();
        try (LogCapture log = new LogCapture("io.purgatory");
             PurgatoryRuntime runtime = PurgatoryRuntime.builder("tenants-expiring").expirationThreads(2).build();
             DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("tenants-expiring")
                     .runtime(runtime).tenants(op -> op.tenant, 100).observer(observer).build()) {
            for (int i = 0; i < 50; i++) {
                Op op = new Op(i % 2 == 0 ? "a" : "b", 1);
                p.tryCompleteElseWatch(op, List.of((i % 2 == 0 ? "a" : "b") + i));
                ops.add(op);
            }
            for (Op op : ops) {
                assertThat(op.done.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(p.topTenants(10)).as("each expiry's booking freed its slot before its callbacks").isEmpty();
            assertThat(observer.ends.get()).isEqualTo(observer.handles.get());
            assertThat(log.events()).isNotEmpty();
        }
    }

    @Test
    void keyedWaits_closedByTheirRuntimesCloseFromADependentStage_freeEveryTenantsSlot() {
        ManualTimer timer = new ManualTimer();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("tenants-runtime").timer(timer).build();
        ThrowingObserver observer = new ThrowingObserver();
        KeyedWaits<String, String> waits = KeyedWaits.builder("tenant-waits").runtime(runtime).observer(observer)
                .tenants((String key) -> key.substring(0, 1), 10).build();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            List<CompletableFuture<String>> pending = new ArrayList<>();
            for (String tenant : List.of("a", "b")) {
                CompletableFuture<String> answered = waits.await(tenant + "-answered", Duration.ofSeconds(5));
                CompletableFuture<String> expired = waits.await(tenant + "-expired", Duration.ofMillis(10));
                CompletableFuture<String> failed = waits.await(tenant + "-failed", Duration.ofSeconds(5));
                CompletableFuture<String> cancelled = waits.await(tenant + "-cancelled", Duration.ofSeconds(5));
                pending.add(waits.await(tenant + "-closed", Duration.ofSeconds(5)));
                pending.add(waits.await(tenant + "-closed-too", Duration.ofSeconds(5)));
                waits.complete(tenant + "-answered", "yes");
                timer.advanceClock(10);
                waits.completeExceptionally(tenant + "-failed", new IllegalStateException("no"));
                cancelled.cancel(false);
                assertThat(List.of(answered, expired, failed, cancelled)).allMatch(CompletableFuture::isDone);
                assertThat(waits.topTenants(5)).contains(new TenantUsage(tenant, 2, 0));
            }
            CompletableFuture<String> closer = waits.await("c-closer", Duration.ofSeconds(5));
            // the runtime's close from a callback of the wait's answer
            CompletableFuture<Void> closed = closer.thenRun(runtime::close);
            waits.complete("c-closer", "close now");

            assertThat(closed).isCompleted();
            assertThat(waits.isClosed()).isTrue();
            assertThat(pending).as("the closed waits are answered").allMatch(CompletableFuture::isDone);
            assertThat(waits.topTenants(10)).as("every slot freed, every tenant forgotten (S1)").isEmpty();
            assertThat(observer.ends.get()).isEqualTo(observer.handles.get());
            assertThat(log.events()).isNotEmpty();
        } finally {
            runtime.close();
        }
    }

    @Test
    void submission_whoseObserverClosesThePurgatoryOrCancelsTheWait_freesItsTenantsSlotOnce() {
        AtomicInteger ends = new AtomicInteger();
        DelayedOperationPurgatory<?>[] purgatory = new DelayedOperationPurgatory<?>[1];
        List<Op> cancelOnStart = new ArrayList<>();
        WaitObserver observer = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                for (Object key : start.keys()) {
                    if (key instanceof FailingKey failing) {
                        failing.failing = true;
                    }
                }
                if (start.keys().contains("close-now")) {
                    purgatory[0].close(); // from user code under the submission's claim
                }
                cancelOnStart.forEach(Op::cancel);
                return new Object();
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                ends.incrementAndGet();
            }
        };
        DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("observer-settles")
                .timer(new ManualTimer()).tenants(op -> op.tenant, 1).observer(observer).build();
        purgatory[0] = p;
        try (LogCapture log = new LogCapture("io.purgatory")) {
            Op cancelled = new Op("t", 5_000);
            cancelOnStart.add(cancelled);
            assertThat(p.tryCompleteElseWatch(cancelled, List.of("k", new FailingKey())))
                    .as("a cancel landed under the submission's claim, before its watch: it stands").isFalse();
            cancelOnStart.clear();
            assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(p.topTenants(5)).as("the cancel freed the slot once").isEmpty();

            Op pending = new Op("t", 5_000);
            p.tryCompleteElseWatch(pending, List.of("k"));
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("t", 5_000), List.of("k")))
                    .isInstanceOf(TenantFullException.class);
            pending.cancel();

            Op closedBySubmission = new Op("t", 5_000);
            assertThat(p.tryCompleteElseWatch(closedBySubmission, List.of("close-now"))).isFalse();
            assertThat(closedBySubmission.isCompleted()).isTrue();
            assertThat(p.topTenants(5)).as("the close's settle freed the slot").isEmpty();
            assertThat(p.engine().admission().tenantCount()).isZero();
            assertThat(ends.get()).isEqualTo(3);
            assertThat(log.events()).isEmpty();
        }
    }
}
