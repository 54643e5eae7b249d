package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Helpers of the reliability suites (ReliabilityStressTest, Fault*Test, BadInputCatalogueTest):
 * threads released together and joined within a bound, waits that fail with a thread dump, and
 * the after-close checks (library threads gone, objects collected, heap near its baseline).
 * Every real-time bound here is a failure bound, never a timing assertion.
 */
final class ReliabilitySupport {

    static final long BOUND_SECONDS = 30;
    static final long HEAP_TOLERANCE_BYTES = 64L << 20;

    private ReliabilitySupport() {
    }

    /** A piece of work that may throw. */
    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    /** Runs each item on its own daemon thread, released together; fails if any throws or hangs. */
    static void runConcurrently(String name, List<Work> work) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < work.size(); i++) {
            Work w = work.get(i);
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    w.run();
                } catch (Throwable e) {
                    failures.add(e);
                    threads.forEach(Thread::interrupt);
                }
            }, name + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        start.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        for (Thread t : List.copyOf(threads)) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                String dump = threadDump();
                threads.forEach(Thread::interrupt);
                fail("thread " + t.getName() + " did not finish within " + BOUND_SECONDS + " s\n" + dump);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(failures.size() + " worker(s) of " + name + " failed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    /** Awaits {@code latch}, failing with a thread dump after {@link #BOUND_SECONDS}. */
    static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            fail(what + " did not happen within " + BOUND_SECONDS + " s (" + latch.getCount() + " left)\n"
                    + threadDump());
        }
    }

    /** Spins until {@code condition} holds, failing with a thread dump after {@link #BOUND_SECONDS}. */
    static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " did not happen within " + BOUND_SECONDS + " s\n" + threadDump());
            }
            Thread.onSpinWait();
        }
    }

    /**
     * A clock that reads {@code manual} without being a ManualClock, which the builders refuse for
     * an own timer: for the tests of an own timer and reaper on a clock the test moves.
     */
    static io.purgatory.timer.Clock readingOf(io.purgatory.timer.ManualClock manual) {
        return new io.purgatory.timer.Clock() {
            @Override
            public long nanoTime() {
                return manual.nanoTime();
            }
        };
    }

    static Thread findThread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                return t;
            }
        }
        return null;
    }

    /** The live threads a purgatory named {@code name} may own: its own name as prefix, or its reaper's. */
    static List<String> libraryThreads(String purgatoryName) {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            if (t.isAlive() && (n.startsWith(purgatoryName) || n.startsWith("ExpirationReaper-" + purgatoryName))) {
                names.add(n);
            }
        }
        return names;
    }

    /** No thread of the purgatory is alive (a shut-down executor's threads get a bounded moment to exit). */
    static void assertNoLibraryThreadLeft(String purgatoryName) {
        awaitCondition("threads of purgatory '" + purgatoryName + "' ended: " + libraryThreads(purgatoryName),
                () -> libraryThreads(purgatoryName).isEmpty());
    }

    /** True once {@code ref} is cleared, running the collector up to 20 times. */
    static boolean isCollected(WeakReference<?> ref) {
        for (int i = 0; i < 20 && ref.get() != null; i++) {
            System.gc();
        }
        return ref.get() == null;
    }

    static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Used heap returns to within {@link #HEAP_TOLERANCE_BYTES} of {@code baseline}; GC retried a few times. */
    static void assertHeapBackNear(long baseline) {
        long used = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 10 && used > baseline + HEAP_TOLERANCE_BYTES; attempt++) {
            used = usedHeapAfterGc();
        }
        assertThat(used).as("used heap after GC vs baseline %d (tolerance %d)", baseline, HEAP_TOLERANCE_BYTES)
                .isLessThanOrEqualTo(baseline + HEAP_TOLERANCE_BYTES);
    }

    /**
     * An operation with replaceable hooks: it completes when {@link #completable} is set, counts
     * each callback before running its hook (so a hook that throws or blocks is still counted),
     * records the thread of each callback, and counts {@link #settled} down once the last
     * callback of its outcome has returned or thrown.
     */
    static class HookOp extends DelayedOperation {
        volatile boolean completable;
        volatile Runnable tryHook = () -> { };
        volatile Runnable completeHook = () -> { };
        volatile Runnable expirationHook = () -> { };
        volatile Runnable cancelHook = () -> { };
        final AtomicInteger tries = new AtomicInteger();
        final AtomicInteger completes = new AtomicInteger();
        final AtomicInteger expirations = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        final CountDownLatch settled = new CountDownLatch(1);
        volatile Thread completedOn;
        volatile Thread expiredOn;

        HookOp(long delayMs) {
            super(delayMs);
        }

        @Override
        protected boolean tryComplete() {
            tries.incrementAndGet();
            tryHook.run();
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
            completes.incrementAndGet();
            completedOn = Thread.currentThread();
            try {
                completeHook.run();
            } finally {
                if (outcome() == Outcome.COMPLETED) {
                    settled.countDown();
                }
            }
        }

        @Override
        protected void onExpiration() {
            expirations.incrementAndGet();
            expiredOn = Thread.currentThread();
            try {
                expirationHook.run();
            } finally {
                settled.countDown();
            }
        }

        @Override
        protected void onCancel() {
            cancels.incrementAndGet();
            try {
                cancelHook.run();
            } finally {
                settled.countDown();
            }
        }

        /** onComplete, onExpiration and onCancel runs, as "c,e,x". */
        String callbackCounts() {
            return completes.get() + "," + expirations.get() + "," + cancels.get();
        }
    }

    static String threadDump() {
        StringBuilder sb = new StringBuilder("thread dump:\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            Thread t = e.getKey();
            sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement frame : e.getValue()) {
                sb.append("    at ").append(frame).append('\n');
            }
        }
        return sb.toString();
    }
}
