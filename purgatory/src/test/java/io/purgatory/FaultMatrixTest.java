package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.internal.UserCode;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The boundary between the library and user code (UserCode), as a matrix: every function of
 * the user's that the core calls x every way it can fail x every path that calls it. In each cell
 * the function fails on every call while armed; then the cell checks that the path threw nothing
 * but the caller's own bad key, that the lists and gauges agree, and, after a close, that every
 * operation (and every keyed wait) was answered exactly once, with its callbacks as its outcome
 * says, and that the counters and the error handler saw exactly the failures thrown.
 * docs/reliability.md shows the matrix.
 */
class FaultMatrixTest {

    /** How the user's function fails. */
    enum Fault {
        RUNTIME_EXCEPTION,
        ERROR,
        /** A real one: the function recurses until the stack runs out. */
        STACK_OVERFLOW,
        /** The function throws, and the error handler rethrows the very exception it was given. */
        RETHROWING_HANDLER
    }

    /** A function of the user's that the core calls. */
    enum Function {
        TRY_COMPLETE(true), ON_COMPLETE(true), ON_EXPIRATION(true), ON_CANCEL(true), PREDICATE(true),
        KEY_HASH_CODE(false), KEY_EQUALS(false), RECORDER(false), CLOCK(false), OBSERVER(false), TENANT_OF(false),
        KEY_RENDERER(false);

        /** Whether a failure goes to the operation's error handler (else it is logged). */
        final boolean callback;

        Function(boolean callback) {
            this.callback = callback;
        }
    }

    /** A path through the core. */
    enum Path {
        SUBMIT, CHECK, POSITIONAL_CHECK, EXPIRY, CANCEL, CANCEL_FOR_KEY, CLOSE, RUNTIME_CLOSE, LIST_PENDING,
        KEYED_SUBMIT, KEYED_COMPLETE, KEYED_COMPLETE_EXCEPTIONALLY;

        boolean keyed() {
            return this == KEYED_SUBMIT || this == KEYED_COMPLETE || this == KEYED_COMPLETE_EXCEPTIONALLY;
        }
    }

    /** The functions each path calls. */
    static Set<Function> functionsOf(Path path) {
        EnumSet<Function> keys = EnumSet.of(Function.KEY_HASH_CODE, Function.KEY_EQUALS);
        EnumSet<Function> metrics = EnumSet.of(Function.RECORDER, Function.CLOCK, Function.OBSERVER);
        EnumSet<Function> set = EnumSet.noneOf(Function.class);
        switch (path) {
            case SUBMIT -> set.addAll(EnumSet.of(Function.TRY_COMPLETE, Function.ON_COMPLETE, Function.TENANT_OF));
            case CHECK, POSITIONAL_CHECK -> set.addAll(EnumSet.of(Function.TRY_COMPLETE, Function.ON_COMPLETE));
            case EXPIRY, CLOSE, RUNTIME_CLOSE -> set.addAll(EnumSet.of(Function.ON_COMPLETE, Function.ON_EXPIRATION));
            case CANCEL, CANCEL_FOR_KEY -> set.add(Function.ON_CANCEL);
            case KEYED_SUBMIT -> set.addAll(EnumSet.of(Function.PREDICATE, Function.TENANT_OF));
            case KEYED_COMPLETE -> set.add(Function.PREDICATE);
            case LIST_PENDING -> set.add(Function.KEY_RENDERER);
            case KEYED_COMPLETE_EXCEPTIONALLY -> { }
        }
        set.addAll(keys);
        set.addAll(metrics);
        return set;
    }

    @TestFactory
    Stream<DynamicTest> userFunctions_failingEveryWayOnEveryPath_leaveTheCoreWholeAndEveryOperationAnsweredOnce() {
        List<DynamicTest> cells = new ArrayList<>();
        for (Path path : Path.values()) {
            for (Function function : functionsOf(path)) {
                for (Fault fault : Fault.values()) {
                    if (fault == Fault.RETHROWING_HANDLER && !function.callback) {
                        continue; // no handler is called for it: the cell is the RUNTIME_EXCEPTION one
                    }
                    cells.add(DynamicTest.dynamicTest(path + " x " + function + " x " + fault,
                            () -> new Cell(path, function, fault).run()));
                }
            }
        }
        assertThat(cells).hasSizeGreaterThan(200);
        return cells.stream();
    }

    /** What the armed function throws, and how often it did. */
    static final class Injector {
        final Function function;
        final Fault fault;
        volatile boolean armed;
        final AtomicInteger thrown = new AtomicInteger();

        Injector(Function function, Fault fault) {
            this.function = function;
            this.fault = fault;
        }

        /** Called by each user function: throws if it is the armed one. */
        void at(Function f) {
            if (!armed || f != function) {
                return;
            }
            thrown.incrementAndGet();
            switch (fault) {
                case RUNTIME_EXCEPTION, RETHROWING_HANDLER -> throw new IllegalStateException("injected in " + f);
                case ERROR -> throw new AssertionError("injected in " + f);
                case STACK_OVERFLOW -> recurse(0);
            }
        }

        /** Recurses until the stack runs out: a real StackOverflowError, thrown deep and unwound. */
        static int recurse(int depth) {
            return depth < Integer.MAX_VALUE ? recurse(depth + 1) + 1 : depth;
        }
    }

    /** A key whose hashCode and equals fail when armed. */
    static final class Key {
        final String name;
        final Injector injector;

        Key(String name, Injector injector) {
            this.name = name;
            this.injector = injector;
        }

        @Override
        public int hashCode() {
            injector.at(Function.KEY_HASH_CODE);
            return name.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            injector.at(Function.KEY_EQUALS);
            return o instanceof Key k && k.name.equals(name);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** An operation whose every callback may fail, counting each call. */
    static final class Op extends DelayedOperation {
        final Injector injector;
        volatile boolean completable;
        final AtomicInteger onComplete = new AtomicInteger();
        final AtomicInteger onExpiration = new AtomicInteger();
        final AtomicInteger onCancel = new AtomicInteger();

        Op(Injector injector) {
            super(100);
            this.injector = injector;
        }

        @Override
        protected boolean tryComplete() {
            injector.at(Function.TRY_COMPLETE);
            return completable && forceComplete();
        }

        @Override
        protected void onComplete() {
            onComplete.incrementAndGet();
            injector.at(Function.ON_COMPLETE);
        }

        @Override
        protected void onExpiration() {
            onExpiration.incrementAndGet();
            injector.at(Function.ON_EXPIRATION);
        }

        @Override
        protected void onCancel() {
            onCancel.incrementAndGet();
            injector.at(Function.ON_CANCEL);
        }

        /** The callbacks as the outcome says: exactly once each, or none while pending. */
        void assertAnsweredAsItsOutcomeSays(String what) {
            Outcome outcome = outcome();
            int[] expected = outcome == null ? new int[] {0, 0, 0} : switch (outcome) {
                case COMPLETED -> new int[] {1, 0, 0};
                case EXPIRED -> new int[] {1, 1, 0};
                case CANCELLED -> new int[] {0, 0, 1};
            };
            assertThat(new int[] {onComplete.get(), onExpiration.get(), onCancel.get()})
                    .as("%s: onComplete, onExpiration, onCancel of an operation %s", what, outcome)
                    .containsExactly(expected);
        }
    }

    /** One cell of the matrix. */
    static final class Cell {
        final Path path;
        final Function function;
        final Fault fault;
        final Injector injector;
        final ManualTimer timer = new ManualTimer();
        final AtomicInteger handled = new AtomicInteger();
        final RecordingMetrics metrics = new RecordingMetrics();
        /** Per started wait, how many times it was ended. */
        final List<AtomicInteger> observed = new ArrayList<>();

        Cell(Path path, Function function, Fault fault) {
            this.path = path;
            this.function = function;
            this.fault = fault;
            this.injector = new Injector(function, fault);
        }

        OperationErrorHandler handler() {
            return (name, op, callback, error) -> {
                handled.incrementAndGet();
                if (fault == Fault.RETHROWING_HANDLER) {
                    throw error instanceof RuntimeException r ? r : new IllegalStateException(error);
                }
            };
        }

        Clock clock() {
            return new Clock() {
                @Override
                public long nanoTime() {
                    injector.at(Function.CLOCK);
                    return timer.clock().nanoTime();
                }
            };
        }

        /** An observer that may fail when armed; it counts the ends of each wait it started. */
        WaitObserver observer() {
            return new WaitObserver() {
                @Override
                public Object started(WaitStart start) {
                    injector.at(Function.OBSERVER);
                    AtomicInteger ends = new AtomicInteger();
                    synchronized (observed) {
                        observed.add(ends);
                    }
                    return ends;
                }

                @Override
                public void ended(Object handle, WaitOutcome outcome, Throwable failure) {
                    ((AtomicInteger) handle).incrementAndGet();
                    injector.at(Function.OBSERVER);
                }
            };
        }

        /** Every wait the observer started was ended exactly once. */
        void assertEveryObservedWaitEndedOnce() {
            synchronized (observed) {
                assertThat(observed).as("ends of each observed wait")
                        .allSatisfy(ends -> assertThat(ends).hasValue(1));
            }
        }

        MetricsRecorderFactory faultyMetrics() {
            return source -> {
                MetricsRecorder recorder = metrics.create(source);
                return new MetricsRecorder() {
                    @Override
                    public void recordSettled(Outcome outcome, long watchedNanos) {
                        injector.at(Function.RECORDER);
                        recorder.recordSettled(outcome, watchedNanos);
                    }

                    @Override
                    public void recordLateness(long latenessNanos) {
                        recorder.recordLateness(latenessNanos);
                    }

                    @Override
                    public void close() {
                        recorder.close();
                    }
                };
            };
        }

        void run() throws Exception {
            try (LogCapture logs = new LogCapture(UserCode.LOGGER)) {
                if (path.keyed()) {
                    runKeyed();
                } else {
                    runOperations();
                }
                if (fault == Fault.RETHROWING_HANDLER) {
                    assertThat(logs.events()).as("each rethrown failure logged once")
                            .hasSize(injector.thrown.get());
                }
            }
        }

        /**
         * Whether the path may throw to its caller: only the caller's own key or tenant function failing
         * in its hands, and a listing that cannot read the ages without the clock.
         */
        boolean mayThrowToCaller() {
            return function == Function.KEY_HASH_CODE || function == Function.KEY_EQUALS
                    || function == Function.TENANT_OF || (path == Path.LIST_PENDING && function == Function.CLOCK);
        }

        /** What the builders are given as the tenant function: the same tenant for all, failing when armed. */
        Object tenantOf() {
            injector.at(Function.TENANT_OF);
            return "tenant";
        }

        private void runOperations() {
            PurgatoryRuntime runtime = path == Path.RUNTIME_CLOSE ? PurgatoryRuntime.builder("rt").timer(timer).build()
                    : null;
            PurgatoryBuilder<Op> builder = DelayedOperationPurgatory.<Op>builder("cell").errorHandler(handler())
                    .metrics(faultyMetrics()).observer(observer()).tenants(op -> tenantOf(), 1_000)
                    .closePolicy(function == Function.ON_CANCEL ? ClosePolicy.CANCEL : ClosePolicy.EXPIRE);
            builder = runtime != null ? builder.runtime(runtime) : builder.timer(timer).clock(clock());
            DelayedOperationPurgatory<Op> p = builder.build();
            KeyedWaits<Key, String> alsoOnTheRuntime = runtime == null ? null
                    : KeyedWaits.builder("rt-waits").runtime(runtime).retainEvents(Duration.ofSeconds(1), 10).build();
            DelayedFuturePurgatory futuresOnTheRuntime = runtime == null ? null
                    : new DelayedFuturePurgatory(DelayedOperationPurgatory.builder("rt-futures").runtime(runtime));
            Key k1 = new Key("k1", injector);
            List<Op> ops = new ArrayList<>();
            List<Op> accepted = new ArrayList<>();
            for (int i = 0; i < 20; i++) { // more emptied key lists than a list keeps, so unwatch removes keys (K5)
                ops.add(new Op(injector));
            }
            if (path == Path.SUBMIT) {
                injector.armed = true;
                ops.forEach(op -> op.completable = true);
            }
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                Key own = new Key("own-" + i, injector);
                try {
                    switch (i % 3) {
                        case 0 -> p.tryCompleteElseWatch(op, List.of(k1, own));
                        case 1 -> p.tryCompleteElseWatch(op, own, 5);
                        default -> p.tryCompleteElseWatch(op, List.of(own));
                    }
                    accepted.add(op);
                } catch (IllegalArgumentException | AssertionError | StackOverflowError callersKey) {
                    assertThat(mayThrowToCaller()).as("only a failing key reaches the submitter: %s", callersKey)
                            .isTrue();
                    assertThat(op.isCompleted()).as("a refused submission leaves the operation unsettled").isFalse();
                }
            }
            if (alsoOnTheRuntime != null) {
                alsoOnTheRuntime.complete(new Key("retained", new Injector(null, null)), "event");
            }
            CompletableFuture<String> pendingFuture = new CompletableFuture<>();
            if (futuresOnTheRuntime != null) {
                futuresOnTheRuntime.tryCompleteElseWatch(60_000, List.of(pendingFuture), () -> { });
            }
            injector.armed = true;
            try {
                switch (path) {
                    case SUBMIT -> { }
                    case CHECK -> {
                        ops.forEach(op -> op.completable = true);
                        p.checkAndComplete(k1);
                    }
                    case POSITIONAL_CHECK -> {
                        ops.forEach(op -> op.completable = true);
                        for (int i = 1; i < ops.size(); i += 3) {
                            p.checkAndComplete(new Key("own-" + i, injector), 10);
                        }
                    }
                    case EXPIRY -> timer.advanceClock(100);
                    case CANCEL -> accepted.forEach(Op::cancel);
                    case CANCEL_FOR_KEY -> p.cancelForKey(k1);
                    case CLOSE -> p.close();
                    case RUNTIME_CLOSE -> runtime.close();
                    case LIST_PENDING -> {
                        KeyRenderer renderer = key -> {
                            injector.at(Function.KEY_RENDERER);
                            return String.valueOf(key);
                        };
                        assertThat(p.listPending(100, PendingOrder.OLDEST_FIRST, renderer)).as("every pending one")
                                .hasSize(p.numDelayed());
                        assertThat(p.topTenants(10, renderer)).singleElement()
                                .extracting(TenantUsage::pending).isEqualTo(p.numDelayed());
                    }
                    default -> throw new AssertionError(path);
                }
            } catch (RuntimeException | Error thrown) {
                assertThat(mayThrowToCaller()).as("%s escaped the core on %s", thrown, path).isTrue();
            }
            injector.armed = false;

            p.engine().checkInvariants();
            for (Op op : accepted) {
                op.assertAnsweredAsItsOutcomeSays("after the path");
            }
            p.close();
            if (runtime != null) {
                runtime.close();
                assertThat(alsoOnTheRuntime.isClosed()).isTrue();
                assertThat(alsoOnTheRuntime.retainedEvents()).as("(defect 12) closed whole by the runtime").isZero();
                assertThat(futuresOnTheRuntime.isClosed()).isTrue();
                assertThat(futuresOnTheRuntime.executorStopped() || !futuresOnTheRuntime.executorStarted())
                        .as("(defect 12) its thread stopped by the runtime").isTrue();
                assertThat(pendingFuture).as("answered by its purgatory's close policy").isDone();
            }
            p.engine().checkInvariants();
            for (Op op : accepted) {
                assertThat(op.isCompleted()).as("answered once closed").isTrue();
                op.assertAnsweredAsItsOutcomeSays("after close");
            }
            for (Op op : ops) {
                if (!accepted.contains(op)) {
                    assertThat(op.isCompleted()).as("a refused operation is never answered").isFalse();
                }
            }
            PurgatoryStats stats = p.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(stats.keys()).isZero();
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("every accepted operation counted once").isEqualTo(accepted.size());
            int callbackFailures = function.callback ? injector.thrown.get() : 0;
            assertThat(stats.callbackErrors()).as("counted, once each").isEqualTo(callbackFailures);
            assertThat(handled).as("handed to the handler, once each").hasValue(callbackFailures);
            assertThat(metrics.allClosed()).as("the recorder closed whatever it threw").isTrue();
            assertThat(timer.size()).as("nothing left on the timer").isZero();
            assertEveryObservedWaitEndedOnce();
        }

        private void runKeyed() {
            KeyedWaits<Key, String> waits = KeyedWaits.builder("keyed").timer(timer).clock(clock())
                    .errorHandler(handler()).metrics(faultyMetrics()).observer(observer())
                    .tenants((Key key) -> tenantOf(), 1_000).retainEvents(Duration.ofSeconds(1), 100).build();
            Key k1 = new Key("k1", injector);
            Key k2 = new Key("k2", injector);
            if (path == Path.KEYED_SUBMIT) {
                waits.complete(k1, "early"); // retained: the submissions' predicates see it
                injector.armed = true;
            }
            List<CompletableFuture<String>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Key own = new Key("own-" + i, injector);
                try {
                    futures.add(switch (i % 4) {
                        case 0 -> waits.on(k1).until(v -> {
                            injector.at(Function.PREDICATE);
                            return true;
                        }).await(Duration.ofMillis(100));
                        case 1 -> waits.onAny(List.of(k1, k2, own)).await(Duration.ofMillis(100));
                        case 2 -> waits.on(k1).atLeast(5).await(Duration.ofMillis(100));
                        default -> waits.await(own, Duration.ofMillis(100));
                    });
                } catch (IllegalArgumentException | AssertionError | StackOverflowError callersKey) {
                    assertThat(mayThrowToCaller()).as("only a failing key reaches the caller: %s", callersKey).isTrue();
                }
            }
            injector.armed = true;
            try {
                switch (path) {
                    case KEYED_SUBMIT -> { }
                    case KEYED_COMPLETE -> {
                        waits.complete(k1, "v");
                        waits.complete(k1, "w", 10);
                    }
                    case KEYED_COMPLETE_EXCEPTIONALLY ->
                            waits.completeExceptionally(k1, new IllegalStateException("x"));
                    default -> throw new AssertionError(path);
                }
            } catch (RuntimeException | Error thrown) {
                assertThat(mayThrowToCaller()).as("%s escaped the core on %s", thrown, path).isTrue();
            }
            injector.armed = false;

            waits.engine().checkInvariants();
            waits.close();
            waits.engine().checkInvariants();
            for (CompletableFuture<String> future : futures) {
                assertThat(future).as("every wait answered once closed").isDone();
            }
            PurgatoryStats stats = waits.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.watched()).isZero();
            assertThat(stats.completed() + stats.completedAtOnce() + stats.expired() + stats.cancelled())
                    .as("every wait counted once").isEqualTo(futures.size());
            int callbackFailures = function.callback ? injector.thrown.get() : 0;
            assertThat(stats.callbackErrors()).as("counted, once each").isEqualTo(callbackFailures);
            assertThat(handled).as("handed to the handler, once each").hasValue(callbackFailures);
            assertThat(timer.size()).as("nothing left on the timer").isZero();
            assertEveryObservedWaitEndedOnce();
        }
    }
}
