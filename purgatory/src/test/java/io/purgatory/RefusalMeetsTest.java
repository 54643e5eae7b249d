package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A refusal (PurgatoryFullException, TenantFullException, filling no stack trace) and the tenant
 * bound, met with what a caller does with the exception, each submission path, what a tenant
 * function can do, and each settle.
 */
@Timeout(10)
class RefusalMeetsTest {

    /** An operation of a tenant; completes when told to. */
    static final class Op extends DelayedOperation {
        final Object tenant;
        volatile boolean completable;

        Op(Object tenant) {
            super(5_000);
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

    @Test
    void tenantFunction_slowOnAnotherThread_refusesNoOtherSubmissionAsFull() throws Exception {
        CountDownLatch inFunction = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("slowfn").timer(timer)
                .maxPending(1).tenants(op -> {
                    if ("slow".equals(op.tenant)) {
                        inFunction.countDown();
                        try {
                            release.await(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new IllegalStateException("directory down");
                    }
                    return op.tenant;
                }, 10).build()) {
            AtomicReference<Throwable> slowFailed = new AtomicReference<>();
            Thread slow = new Thread(() -> {
                try {
                    p.tryCompleteElseWatch(new Op("slow"), List.of("k"));
                } catch (Throwable t) {
                    slowFailed.set(t);
                }
            }, "slow-tenant-fn");
            slow.start();
            assertThat(inFunction.await(5, TimeUnit.SECONDS)).isTrue();
            try {
                Op other = new Op("b");
                // nothing is pending: a submission still asking for its tenant holds no slot (UserCode U4)
                p.tryCompleteElseWatch(other, List.of("k"));
                assertThat(p.numDelayed()).isEqualTo(1);
            } finally {
                release.countDown();
                slow.join(5_000);
            }
            assertThat(slowFailed.get()).isInstanceOf(IllegalArgumentException.class);
            assertThat(p.stats().rejected()).isZero();
            p.engine().checkInvariants();
        }
    }

    @Test
    void tenantFunction_submittingToItsOwnFullPurgatory_isAdmittedWhenNothingIsPending() {
        AtomicReference<DelayedOperationPurgatory<Op>> self = new AtomicReference<>();
        AtomicReference<Throwable> inner = new AtomicReference<>();
        Op nested = new Op("nested");
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("reentrant").timer(timer)
                .maxPending(1).tenants(op -> {
                    if ("outer".equals(op.tenant)) {
                        try {
                            self.get().tryCompleteElseWatch(nested, List.of("k"));
                        } catch (RuntimeException e) {
                            inner.set(e);
                        }
                    }
                    return op.tenant;
                }, 10).build()) {
            self.set(p);
            Op outer = new Op("outer");
            assertThatThrownBy(() -> p.tryCompleteElseWatch(outer, List.of("k")))
                    .as("the nested submission took the one slot").isExactlyInstanceOf(PurgatoryFullException.class);
            assertThat(inner.get()).as("the nested submission found nothing pending").isNull();
            assertThat(p.numDelayed()).isEqualTo(1);
            assertThat(outer.isCompleted()).isFalse();
            p.engine().checkInvariants();
        }
    }

    private DelayedOperationPurgatory<Op> tenanted(String name, int maxPending, int perTenant) {
        PurgatoryBuilder<Op> b = DelayedOperationPurgatory.<Op>builder(name).timer(timer).tenants(op -> op.tenant,
                perTenant);
        return maxPending > 0 ? b.maxPending(maxPending).build() : b.build();
    }

    private static TenantFullException refusalOf(DelayedOperationPurgatory<Op> p, Object tenant) {
        try {
            p.tryCompleteElseWatch(new Op(tenant), List.of("k"));
        } catch (TenantFullException refused) {
            return refused;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void refusal_whatACallerDoesWithIt_behavesAsAnyExceptionWithoutATrace() throws Exception {
        try (DelayedOperationPurgatory<Op> p = tenanted("uses", 0, 1)) {
            p.tryCompleteElseWatch(new Op("t"), List.of("k"));
            TenantFullException refused = refusalOf(p, "t");
            assertThat(refused.getStackTrace()).isEmpty();
            assertThat(refused.fillInStackTrace()).isSameAs(refused);
            assertThat(refused.getStackTrace()).as("filled again: still none").isEmpty();
            IllegalStateException cause = new IllegalStateException("why");
            assertThat(refused.initCause(cause)).isSameAs(refused);
            assertThatThrownBy(() -> refused.initCause(cause)).isInstanceOf(IllegalStateException.class);
            refused.addSuppressed(new RuntimeException("also"));
            StackTraceElement at = new StackTraceElement("Caller", "submit", "Caller.java", 7);
            refused.setStackTrace(new StackTraceElement[] {at});
            assertThat(refused.getStackTrace()).containsExactly(at);
            StringWriter printed = new StringWriter();
            refused.printStackTrace(new PrintWriter(printed));
            assertThat(printed.toString()).contains("tenant 't' of purgatory 'uses' is full", "Caller.submit",
                    "Caused by: java.lang.IllegalStateException: why", "Suppressed: java.lang.RuntimeException: also");

            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(refused);
            }
            Object back;
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                back = in.readObject();
            }
            assertThat(back).isInstanceOfSatisfying(TenantFullException.class, copy -> {
                assertThat(copy.tenant()).isEqualTo("t");
                assertThat(copy.maxPending()).isEqualTo(1);
                assertThat(copy.getMessage()).isEqualTo(refused.getMessage());
                assertThat(copy.getCause()).hasMessage("why");
                assertThat(copy.getSuppressed()).singleElement().satisfies(s -> assertThat(s).hasMessage("also"));
                assertThat(copy.getStackTrace()).containsExactly(at);
            });
            TenantFullException fresh = refusalOf(p, "t");
            assertThat(fresh).as("each refusal its own").isNotSameAs(refused);
            assertThat(fresh.getCause()).isNull();
            assertThat(fresh.getSuppressed()).isEmpty();
            assertThat(fresh.getStackTrace()).isEmpty();
            assertThat(p.stats().rejected()).isEqualTo(2);
        }
    }

    @Test
    void refusal_atEachKeyedSubmissionPath_failsTheFutureTouchingNothing() {
        List<Object> tested = new java.util.concurrent.CopyOnWriteArrayList<>();
        KeyedWaits<String, String> waits = KeyedWaits.builder("keyed-full").timer(timer).maxPending(1)
                .retainEvents(Duration.ofSeconds(30), 100).build();
        try (waits) {
            waits.complete("early", "kept"); // retained: would answer a wait on "early" at once
            CompletableFuture<String> held = waits.await("held", Duration.ofSeconds(5));
            List<CompletableFuture<String>> refused = List.of(
                    waits.await("k1", Duration.ofSeconds(5)),
                    waits.await("k1", Duration.ofSeconds(5), v -> tested.add(v)),
                    waits.awaitAny(List.of("k1", "k2"), Duration.ofSeconds(5), v -> tested.add(v)),
                    waits.on("k1").atLeast(5).await(Duration.ofSeconds(5)),
                    waits.onAny(List.of("k2", "k3")).until(v -> tested.add(v)).orElse("fallback")
                            .await(Duration.ofSeconds(5)),
                    waits.await("early", Duration.ofSeconds(5), v -> tested.add(v)));
            for (CompletableFuture<String> f : refused) {
                assertThat(f).isCompletedExceptionally();
                assertThatThrownBy(f::join).isInstanceOf(CompletionException.class)
                        .cause().isExactlyInstanceOf(PurgatoryFullException.class)
                        .hasMessageContaining("'keyed-full' is full");
                assertThatThrownBy(() -> f.thenApply(String::length).join()).isInstanceOf(CompletionException.class)
                        .cause().isExactlyInstanceOf(PurgatoryFullException.class);
            }
            assertThat(tested).as("no refused wait was tried").isEmpty();
            assertThat(waits.pending()).isEqualTo(1);
            assertThat(waits.stats().rejected()).isEqualTo(refused.size());
            waits.complete("held", "done");
            assertThat(held).isCompletedWithValue("done");
            assertThat(waits.await("early", Duration.ofSeconds(5))).as("the early event was not taken by a refusal")
                    .isCompletedWithValue("kept");
            waits.engine().checkInvariants();
        }
    }

    @Test
    void refusal_ofAFuturePurgatoryAndOnASharedRuntime_isItsOwnPurgatorysOnly() {
        try (PurgatoryRuntime runtime = PurgatoryRuntime.builder("shared-rt").build();
             DelayedFuturePurgatory futures = new DelayedFuturePurgatory(
                     DelayedOperationPurgatory.builder("futures").runtime(runtime).maxPending(1));
             DelayedOperationPurgatory<Op> other = DelayedOperationPurgatory.<Op>builder("other").runtime(runtime)
                     .maxPending(1).build()) {
            CompletableFuture<String> first = new CompletableFuture<>();
            CountDownLatch answered = new CountDownLatch(1);
            futures.tryCompleteElseWatch(5_000, List.of(first), answered::countDown);
            CompletableFuture<String> second = new CompletableFuture<>();
            List<String> calledBack = new java.util.concurrent.CopyOnWriteArrayList<>();
            assertThatThrownBy(() -> futures.tryCompleteElseWatch(5_000, List.of(second),
                    () -> calledBack.add("refused")))
                    .isExactlyInstanceOf(PurgatoryFullException.class).hasMessageContaining("'futures' is full");
            other.tryCompleteElseWatch(new Op("x"), List.of("k")); // the other purgatory's slot, not shared
            assertThat(other.numDelayed()).isEqualTo(1);
            second.complete("late");
            first.complete("v");
            assertThat(answered.getCount()).isLessThanOrEqualTo(1);
            assertThat(calledBack).as("a refused DelayedFuture is never called back").isEmpty();
            assertThat(futures.stats().rejected()).isEqualTo(1);
            assertThat(other.stats().rejected()).isZero();
        }
    }

    /** A tenant whose toString misbehaves as {@code how} says. */
    record BadTenant(String how) {
        @Override
        public String toString() {
            return switch (how) {
                case "throws" -> throw new IllegalStateException("toString down");
                case "null" -> null;
                default -> "x".repeat(100);
            };
        }
    }

    @Test
    void tenant_whoseToStringThrowsOrIsNullOrLong_isRefusedShownAsTheRendererShowsIt() {
        try (DelayedOperationPurgatory<Op> p = tenanted("shown", 0, 1);
                LogCapture log = new LogCapture("io.purgatory")) {
            for (String how : List.of("throws", "null", "long")) {
                BadTenant tenant = new BadTenant(how);
                p.tryCompleteElseWatch(new Op(tenant), List.of("k"));
                TenantFullException refused = refusalOf(p, new BadTenant(how));
                String shown = how.equals("long") ? "x".repeat(64) + "…" : "?";
                assertThat(refused.tenant()).isEqualTo(shown);
                assertThat(refused.getMessage()).startsWith("tenant '" + shown + "' of purgatory 'shown' is full");
                assertThat(p.topTenants(5, t -> t == tenant ? "mine" : "other")).extracting(TenantUsage::rejected)
                        .as("counted once").contains(1L);
            }
            assertThat(p.stats().rejected()).isEqualTo(3);
            p.engine().checkInvariants();
            assertThat(log.events()).as("the renderer's failures (throws, null), each logged")
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("Purgatory 'shown': its KeyRenderer threw; the value shows as ?",
                            "Purgatory 'shown': its KeyRenderer threw; the value shows as ?");
        }
    }

    /** Thrown by a tenant function; its message cannot be read. */
    static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        @Override
        public String getMessage() {
            throw new IllegalStateException("message down");
        }
    }

    @Test
    void tenantFunction_throwingWhatCannotBeShown_failsTheCallAsIllegalArgumentHoldingNoSlot() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("unreadable").timer(timer).maxPending(1)
                .tenants((String key) -> {
                    if (key.startsWith("bad")) {
                        throw new Unreadable();
                    }
                    return key;
                }, 1).build();
        try (waits) {
            assertThatThrownBy(() -> waits.await("bad", Duration.ofSeconds(5)))
                    .as("a broken tenant function is not a capacity refusal nor a close")
                    .isInstanceOf(IllegalArgumentException.class).hasCauseInstanceOf(Unreadable.class);
            assertThat(waits.await("good", Duration.ofSeconds(5))).as("no slot held").isNotDone();
            waits.engine().checkInvariants();
        }
    }

    @Test
    void tenantFunction_callingBackIntoItsPurgatory_leavesEverySlotWhole() {
        AtomicReference<DelayedOperationPurgatory<Op>> self = new AtomicReference<>();
        List<Object> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (DelayedOperationPurgatory<Op> p = DelayedOperationPurgatory.<Op>builder("callback").timer(timer)
                .maxPending(10).tenants(op -> {
                    DelayedOperationPurgatory<Op> me = self.get();
                    seen.add(me.topTenants(5));
                    seen.add(me.listPending(5, PendingOrder.OLDEST_FIRST).size());
                    seen.add(me.checkAndComplete("k"));
                    if ("closer".equals(op.tenant)) {
                        me.close();
                    }
                    return op.tenant;
                }, 1).build()) {
            self.set(p);
            Op first = new Op("a");
            p.tryCompleteElseWatch(first, List.of("k"));
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("a"), List.of("k")))
                    .isInstanceOf(TenantFullException.class);
            assertThat(seen).hasSize(6);
            Op closer = new Op("closer");
            boolean completed;
            try {
                completed = p.tryCompleteElseWatch(closer, List.of("k"));
            } catch (IllegalStateException closed) {
                completed = false;
            }
            assertThat(completed).isFalse();
            assertThat(first.isCompleted()).as("closed by the tenant function's close").isTrue();
            assertThat(p.numDelayed()).isZero();
            assertThat(p.topTenants(5)).isEmpty();
            p.engine().checkInvariants();
        }
    }

    @Test
    void bothBounds_reachedAtOnce_refuseAsFullWithoutChargingTheTenant() {
        try (DelayedOperationPurgatory<Op> p = tenanted("both", 2, 1)) {
            p.tryCompleteElseWatch(new Op("a"), List.of("k"));
            p.tryCompleteElseWatch(new Op("b"), List.of("k"));
            assertThatThrownBy(() -> p.tryCompleteElseWatch(new Op("a"), List.of("k")))
                    .isExactlyInstanceOf(PurgatoryFullException.class);
            assertThat(p.topTenants(5)).containsExactlyInAnyOrder(new TenantUsage("a", 1, 0),
                    new TenantUsage("b", 1, 0));
            assertThat(p.stats().rejected()).isEqualTo(1);
        }
    }

    @Test
    void tenantBound_everyKeyedSettle_freesTheSlotOnce() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("settles").timer(timer)
                .retainEvents(Duration.ofSeconds(30), 100).tenants((String key) -> "t", 1).build();
        try (waits) {
            waits.complete("early", "kept");
            assertThat(waits.await("early", Duration.ofSeconds(5))).as("answered at submission")
                    .isCompletedWithValue("kept");
            CompletableFuture<String> cancelled = waits.await("k", Duration.ofSeconds(5));
            assertThat(waits.await("k", Duration.ofSeconds(5))).isCompletedExceptionally();
            cancelled.cancel(false);
            CompletableFuture<String> fromOutside = waits.await("k", Duration.ofSeconds(5));
            fromOutside.complete("outside");
            CompletableFuture<String> failed = waits.await("k", Duration.ofSeconds(5));
            waits.completeExceptionally("k", new RuntimeException("no"));
            assertThat(failed).isCompletedExceptionally();
            CompletableFuture<String> expired = waits.on("k").orElse("timeout").await(Duration.ofMillis(10));
            timer.advanceClock(100);
            assertThat(expired).isCompletedWithValue("timeout");
            CompletableFuture<String> last = waits.await("k", Duration.ofSeconds(5));
            assertThat(last).isNotDone();
            assertThat(waits.topTenants(5)).containsExactly(new TenantUsage("t", 1, 0));
            waits.engine().checkInvariants();
            waits.close();
            assertThat(last).isDone();
            assertThat(waits.topTenants(5)).isEmpty();
            assertThat(waits.engine().admission().tenantCount()).isZero();
        }
    }

    @Test
    void topTenants_whileSubmitsAndSettlesRace_neverListsAnEmptyOrOverfullTenant() throws Exception {
        try (DelayedOperationPurgatory<Op> p = tenanted("racing", 0, 2)) {
            int rounds = 300;
            CountDownLatch done = new CountDownLatch(2);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int w = 0; w < 2; w++) {
                String tenant = "t" + w;
                Thread worker = new Thread(() -> {
                    try {
                        for (int i = 0; i < rounds; i++) {
                            Op op = new Op(i % 2 == 0 ? tenant : "shared");
                            try {
                                p.tryCompleteElseWatch(op, List.of("k" + i));
                            } catch (TenantFullException refused) {
                                continue;
                            }
                            op.forceComplete();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    } finally {
                        done.countDown();
                    }
                }, "racing-" + w);
                worker.start();
            }
            while (!done.await(0, TimeUnit.MILLISECONDS)) {
                for (TenantUsage u : p.topTenants(10)) {
                    assertThat(u.pending()).isBetween(1, 2);
                    assertThat(u.rejected()).isNotNegative();
                }
            }
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(failure.get()).isNull();
            assertThat(p.topTenants(10)).isEmpty();
            assertThat(p.engine().admission().tenantCount()).isZero();
            p.engine().checkInvariants();
        }
    }

    /** A tenant whose hashCode throws what KeyedWaits would take for a close. */
    record UnhashableTenant(String name) {
        @Override
        public int hashCode() {
            throw new IllegalStateException("hash down");
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }
    }

    @Test
    void tenant_whoseHashCodeThrows_failsTheCallAsAKeysWouldHoldingNoSlot() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("unhashable").timer(timer).maxPending(1)
                .tenants((String key) -> key.startsWith("bad") ? new UnhashableTenant(key) : key, 1).build();
        try (waits) {
            assertThatThrownBy(() -> waits.await("bad", Duration.ofSeconds(5)))
                    .as("not a capacity refusal nor a close: the call fails, as for a watch key whose hashCode throws")
                    .isInstanceOf(IllegalArgumentException.class).hasRootCauseMessage("hash down");
            assertThat(waits.await("good", Duration.ofSeconds(5))).as("no slot held").isNotDone();
            assertThat(waits.stats().rejected()).isZero();
            waits.engine().checkInvariants();
        }
    }

    /**
     * A tenant sharing every other's hash; its equals throws {@code failure} against any other object
     * if not null.
     * Ordered by id, so the map's tree bin is the same in every run (else it breaks ties by identity
     * hashes), and the removal of id 0, never the root, calls its equals.
     */
    record Collider(int id, Throwable failure) implements Comparable<Collider> {
        @Override
        public int compareTo(Collider other) {
            return Integer.compare(id, other.id);
        }

        @Override
        public int hashCode() {
            return 42;
        }

        @Override
        public boolean equals(Object o) {
            if (failure instanceof Error error && o != this) {
                throw error;
            }
            if (failure != null && o != this) {
                throw (RuntimeException) failure;
            }
            return o instanceof Collider c && c.id == id;
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tenant_whoseEqualsThrows_settlesWholeWhenItsSlotIsFreed(boolean anError) {
        Throwable failure = anError ? new AssertionError("equals down") : new IllegalStateException("equals down");
        try (DelayedOperationPurgatory<Op> p = tenanted("colliding", 0, 5);
                LogCapture log = new LogCapture("io.purgatory")) {
            Op strict = new Op(new Collider(0, failure)); // first in its bin: admitted without its equals called
            p.tryCompleteElseWatch(strict, List.of("k"));
            for (int i = 1; i <= 12; i++) { // the bin becomes a tree (64 slots, 8 in a bin)
                p.tryCompleteElseWatch(new Op(new Collider(i, null)), List.of("k"));
            }
            assertThat(p.engine().admission().tenantCount()).isEqualTo(13);
            assertThat(strict.forceComplete()).isTrue(); // its tenant's removal calls its equals
            assertThat(p.numDelayed()).isEqualTo(12);
            p.engine().checkInvariants();
            assertThat(log.events()).singleElement().satisfies(e -> {
                assertThat(e.getFormattedMessage()).contains("'colliding'", "the settle stands");
                assertThat(e.getThrowableProxy().getMessage()).isEqualTo("equals down");
            });
        }
    }
}
