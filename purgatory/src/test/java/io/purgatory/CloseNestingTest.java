package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.purgatory.ReliabilitySupport.HookOp;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Closes nested in code the library called, and what a close keeps once it returned: promises 1,
 * 3 and 7 of docs/reliability.md, and its "Reachability" (neither the purgatory nor a settled
 * operation holds anything that settled). Hangs are caught by bounded waits, not by timing.
 */
class CloseNestingTest {

    private static final int PENDING = 50;
    private static final int PAYLOAD_BYTES = 256 * 1024;
    private static final long BOUND_SECONDS = 30; // a failure bound, not a measurement

    // ---- what a close from a callback keeps (Closing N5's `swept`) ----

    /*
     * docs/reliability.md, "Reachability": "neither the purgatory nor a settled operation the
     * application keeps holds anything that settled". A close from a callback waits for nothing,
     * so it never sees what its sweep found finished, and Closing keeps that list in `swept` for a
     * later close: the closed purgatory, which the application still holds, keeps every operation
     * the close settled (and their payloads) reachable for as long as it lives.
     */
    @Test
    void close_fromACallback_theClosedPurgatoryHoldsNoneOfTheOperationsItSettled() {
        ManualTimer timer = new ManualTimer();
        DelayedOperationPurgatory<Payload> purgatory = DelayedOperationPurgatory.<Payload>builder("keeps-swept")
                .timer(timer).reaperEnabled(false).build();
        try {
            List<WeakReference<Payload>> refs = new ArrayList<>();
            for (int i = 0; i < PENDING; i++) {
                Payload op = new Payload();
                purgatory.tryCompleteElseWatch(op, List.of("k"));
                refs.add(new WeakReference<>(op));
            }
            Payload closer = new Payload();
            closer.completeHook = purgatory::close;
            purgatory.tryCompleteElseWatch(closer, List.of("closer"));

            assertThat(closer.forceComplete()).isTrue(); // its onComplete closes the purgatory, waiting for nothing

            assertThat(purgatory.isClosed()).isTrue();
            assertThat(refs.stream().map(WeakReference::get).filter(op -> op != null && op.isCompleted()).count())
                    .as("each pending operation answered by the close").isEqualTo(PENDING);
            assertCollected(timer, refs);
        } finally {
            purgatory.close();
            timer.close();
        }
    }

    // ---- closes from a wait's future and an observer, expiries inline on the driver (promises 1, 3, 7) ----

    /*
     * A runtime whose expirations run inline on its driver (Runnable::run). The first wait to time
     * out closes the runtime from its future's whenComplete, on the driver; an observer of the
     * other purgatory closes that one too as each of its waits ends. Every wait ends once, every
     * operation is answered once, nothing waits its bound (no warning), and both are closed.
     */
    @Test
    void runtimeClose_fromAWaitsWhenCompleteOnTheDriverWithAnInlineExecutor_answersEveryWaitOnceAndWaitsForNothing()
            throws Exception {
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("inline-close").expirationExecutor(Runnable::run).build();
        Map<Object, AtomicInteger> ends = new ConcurrentHashMap<>();
        AtomicReference<DelayedOperationPurgatory<HookOp>> observed = new AtomicReference<>();
        WaitObserver observer = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                Object handle = new Object();
                ends.put(handle, new AtomicInteger());
                return handle;
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                ends.get(handle).incrementAndGet();
                observed.get().close(); // a close from an observer, on whatever thread ends the wait
            }
        };
        KeyedWaits<String, String> waits = KeyedWaits.builder("waits").runtime(runtime).build();
        observed.set(DelayedOperationPurgatory.<HookOp>builder("observed").runtime(runtime).observer(observer).build());
        List<HookOp> ops = new ArrayList<>();
        List<CompletableFuture<String>> futures = new ArrayList<>();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            for (int i = 0; i < PENDING; i++) {
                HookOp op = new HookOp(60_000);
                observed.get().tryCompleteElseWatch(op, List.of("k" + i));
                ops.add(op);
                futures.add(waits.await("w" + i, Duration.ofMinutes(1)));
            }
            CompletableFuture<String> first = waits.await("first", Duration.ofMillis(1));
            CompletableFuture<Void> closed = first.handle((v, e) -> {
                runtime.close(); // on the driver, inside the wait's expiry
                return null;
            }).thenAccept(unused -> { });

            closed.get(BOUND_SECONDS, TimeUnit.SECONDS);
            for (CompletableFuture<String> future : futures) {
                assertThat(future).as("each wait answered by the runtime's close").isDone();
            }
            assertThat(ops.stream().mapToInt(op -> op.completes.get() + op.cancels.get()).boxed().distinct().toList())
                    .as("[callbacks run] of every operation").containsExactly(1);
            assertThat(ends.values().stream().map(AtomicInteger::get).distinct().toList())
                    .as("[ends told] of every observed wait").containsExactly(1);
            assertThat(List.of(waits.isClosed(), observed.get().isClosed())).containsExactly(true, true);
            assertThat(warnings(log)).isEmpty();
        } finally {
            runtime.close();
        }
    }

    /*
     * An expiration executor that refuses every command (one shut down): the timer runs each expiry
     * on the driver instead. A user's close racing those expiries answers every operation exactly
     * once, the expired ones and the pending ones, and returns.
     */
    @Test
    void close_whileAnExpirationExecutorRefusesEveryExpiry_answersEveryOperationExactlyOnce() throws Exception {
        ExecutorService shutDown = Executors.newSingleThreadExecutor();
        shutDown.shutdown();
        PurgatoryRuntime runtime = PurgatoryRuntime.builder("refusing").expirationExecutor(shutDown).build();
        DelayedOperationPurgatory<HookOp> purgatory = DelayedOperationPurgatory.<HookOp>builder("refused")
                .runtime(runtime).build();
        List<HookOp> ops = new ArrayList<>();
        try (LogCapture log = new LogCapture("io.purgatory")) {
            for (int i = 0; i < PENDING; i++) {
                HookOp expiring = new HookOp(1);
                HookOp pending = new HookOp(60_000);
                purgatory.tryCompleteElseWatch(expiring, List.of("e" + i));
                purgatory.tryCompleteElseWatch(pending, List.of("p" + i));
                ops.add(expiring);
                ops.add(pending);
            }
            assertThat(ops.get(0).settled.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("an expiry ran").isTrue();
            CompletableFuture.runAsync(runtime::close).get(BOUND_SECONDS, TimeUnit.SECONDS);

            assertThat(ops.stream().mapToInt(op -> op.completes.get() + op.cancels.get()).boxed().distinct().toList())
                    .as("[callbacks run] of every operation").containsExactly(1);
            assertThat(ops.stream().mapToInt(op -> op.expirations.get()).sum()).as("expiries")
                    .isBetween(1, 2 * PENDING);
            assertThat(purgatory.numDelayed()).isZero();
            assertThat(log.events()).isNotNull(); // absorbs the refusals' warnings
        } finally {
            runtime.close();
        }
    }

    // ---- helpers ----

    /** The timer drops its cancelled entries at its next turn; then no settled operation is reachable. */
    private static void assertCollected(ManualTimer timer, List<WeakReference<Payload>> refs) {
        timer.advanceClock(0);
        for (int i = 0; i < 10 && refs.stream().anyMatch(ref -> ref.get() != null); i++) {
            System.gc();
        }
        long alive = refs.stream().filter(ref -> ref.get() != null).count();
        assertThat(alive).as("settled operations the closed purgatory still holds").isZero();
    }

    static List<String> warnings(LogCapture log) {
        return log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** An operation holding a payload, as a request context would. */
    static final class Payload extends HookOp {
        final byte[] payload = new byte[PAYLOAD_BYTES];

        Payload() {
            super(60_000);
        }
    }
}
