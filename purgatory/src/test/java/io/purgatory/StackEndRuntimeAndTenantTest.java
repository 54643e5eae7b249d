package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.purgatory.NearlyExhaustedStackTest.AtEveryDepth;
import io.purgatory.internal.EngineInternals;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Deep nesting (a real StackOverflowError thrown by the library's own frames) against two seams: a
 * runtime's close cut short part way, which the next close must finish as a purgatory's close
 * does (Closing N5; promise 3: a runtime's close closes every purgatory on it, whole); and a
 * submission to a purgatory with tenants and an observer, whose wait owner (WaitOwner) is made
 * under the claim, which must leave nothing behind (promise 2, Engine N1, N6, Admission S1).
 */
class StackEndRuntimeAndTenantTest {

    private static final int LEVELS = 600;
    private static final long STACK_BYTES = 512 * 1024;

    @Test
    void runtimeClose_cutShortNearTheEndOfTheStack_aLaterCloseClosesEveryPurgatoryOnIt() throws Exception {
        onSmallStack(() -> {
            try (LogCapture log = new LogCapture("io.purgatory")) {
                List<PurgatoryRuntime> runtimes = new ArrayList<>();
                List<MockOperation> ops = new ArrayList<>();
                for (int i = 0; i < LEVELS + 100; i++) {
                    PurgatoryRuntime runtime = PurgatoryRuntime.builder("deep-runtime-" + i)
                            .timer(new ManualTimer()).build();
                    for (int j = 0; j < 2; j++) {
                        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory
                                .<MockOperation>builder("deep-" + i + "-" + j).runtime(runtime).build();
                        for (int k = 0; k < 3; k++) {
                            MockOperation op = new MockOperation(60_000);
                            p.tryCompleteElseWatch(op, List.of("k" + k, "shared"));
                            ops.add(op);
                        }
                    }
                    runtimes.add(runtime);
                }
                runtimes.get(runtimes.size() - 1).close(); // every class loaded at a comfortable depth

                AtEveryDepth.run(LEVELS, i -> {
                    try {
                        runtimes.get(i).close();
                    } catch (StackOverflowError overflow) {
                        // cut short by the caller's own depth: the next close must finish the job
                    }
                });
                runtimes.forEach(PurgatoryRuntime::close);

                assertThat(ops).as("operations left unsettled after every runtime was closed twice")
                        .filteredOn(op -> !op.isCompleted()).isEmpty();
                assertThat(log.events()).isNotNull();
            }
        });
    }

    @Test
    void tryCompleteElseWatch_withTenantsAndAnObserverNearTheEndOfTheStack_leavesNoSlotClaimOrWaitBehind()
            throws Exception {
        onSmallStack(() -> {
            try (LogCapture log = new LogCapture("io.purgatory")) {
                submitAtEveryDepth();
                assertThat(log.events()).isNotNull();
            }
        });
    }

    private static void submitAtEveryDepth() {
        AtomicInteger handles = new AtomicInteger();
        AtomicInteger ends = new AtomicInteger();
        WaitObserver observer = new WaitObserver() {
            @Override
            public Object started(WaitStart start) {
                Object handle = new Object();
                handles.incrementAndGet();
                return handle;
            }

            @Override
            public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                ends.incrementAndGet();
            }
        };
        int bound = 10 * LEVELS;
        DelayedOperationPurgatory<MockOperation> p = DelayedOperationPurgatory.<MockOperation>builder("deep-tenants")
                .timer(new ManualTimer()).maxPending(bound).tenants(op -> "t", bound).observer(observer).build();
        for (int i = 0; i < 3; i++) { // every class loaded and linked at a comfortable depth
            MockOperation warm = new MockOperation(60_000);
            p.tryCompleteElseWatch(warm, List.of("warm", "shared"));
            p.checkAndComplete("warm");
            p.cancelForKey("shared");
        }
        handles.set(0);
        ends.set(0);
        List<MockOperation> ops = new ArrayList<>();
        List<MockOperation> refused = new ArrayList<>();
        AtEveryDepth.run(LEVELS, i -> {
            MockOperation op = new MockOperation(60_000);
            try {
                p.tryCompleteElseWatch(op, List.of("k" + i, "shared"));
                ops.add(op);
            } catch (StackOverflowError overflow) {
                refused.add(op);
            }
        });

        assertThat(refused).as("submissions that overflowed: the probe reached the end of the stack").isNotEmpty();
        assertThat(refused).as("an overflowing submission leaves its operation untouched, its claim not held")
                .filteredOn(op -> EngineInternals.state(op) != 0).isEmpty();
        assertThat(p.numDelayed()).isEqualTo(ops.size());
        assertThat(p.topTenants(1)).as("the tenant's slots: one per pending operation")
                .containsExactly(new TenantUsage("t", ops.size(), 0));
        assertThatCode(() -> p.engine().checkInvariants()).doesNotThrowAnyException();
        assertThat(p.cancelForKey("shared")).hasSize(ops.size());
        assertThat(p.topTenants(10)).as("every tenant slot freed (S1)").isEmpty();
        assertThat(ends.get()).as("each observed wait ended once").isEqualTo(handles.get());
        for (MockOperation op : refused) { // each refused operation can be submitted again
            op.completable = true;
            assertThat(p.tryCompleteElseWatch(op, List.of("resubmitted"))).isTrue();
        }
        p.close();
        assertThat(p.topTenants(10)).isEmpty();
    }

    /** Runs {@code body} on a thread of its own with a small stack, rethrowing what it threw. */
    private static void onSmallStack(Runnable body) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "small-stack", STACK_BYTES);
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(120));
        assertThat(t.isAlive()).isFalse();
        if (failure.get() instanceof Error e) {
            throw e;
        }
        if (failure.get() instanceof Exception e) {
            throw e;
        }
    }
}
