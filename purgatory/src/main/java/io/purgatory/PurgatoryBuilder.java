package io.purgatory;

import io.purgatory.internal.Operation;
import io.purgatory.timer.Clock;
import io.purgatory.timer.ManualTimer;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Builds a {@link DelayedOperationPurgatory}: {@code DelayedOperationPurgatory<MyOp> p =
 * DelayedOperationPurgatory.builder("name").maxPending(10_000).build();}, the operation type
 * inferred from the assignment. Defaults are Kafka's where it has them: the purgatory's own timer
 * ({@link TimerSettings#DEFAULT}), 512 shards, reaper on, timer on; plus ours: no limit on pending
 * operations, operations expired on close, errors to the process-wide handler
 * ({@link OperationErrorHandler#processDefault()}: logged), no metrics. A setting that cannot
 * apply beside another is refused at {@code build()}, naming both.
 * Not thread-safe.
 *
 * <p>For deterministic tests, give it a {@link ManualTimer}: the test then moves time with
 * {@code timer.advanceClock(ms)} and every due operation expires on the test's thread before that
 * call returns (no reaper thread is started for it). To share one timer and its threads among purgatories,
 * give each the same {@link PurgatoryRuntime}.
 */
public final class PurgatoryBuilder<T extends DelayedOperation> {

    /** The default number of shards of a purgatory's key space, as Kafka's. */
    public static final int DEFAULT_SHARDS = EngineSettings.DEFAULT_SHARDS;

    /** The most shards a purgatory's key space may have. */
    public static final int MAX_SHARDS = EngineSettings.MAX_SHARDS;

    /** The settings collected; a {@link DelayedFuturePurgatory} is built from them too. */
    final EngineSettings settings;

    PurgatoryBuilder(String name) {
        this.settings = new EngineSettings(name);
    }

    /**
     * Uses {@code timer} (a {@link io.purgatory.timer.SystemTimer}, a {@link ManualTimer} or a
     * {@link io.purgatory.timer.SystemTimerReaper} of one) instead of the purgatory's own; the
     * purgatory adds operations to it but does not close it. A {@link ManualTimer} is advanced by
     * the test, so no reaper thread is started for it.
     */
    public PurgatoryBuilder<T> timer(Timer timer) {
        settings.timer(timer);
        return this;
    }

    /**
     * Runs the purgatory on {@code runtime}, sharing its timer, driver thread and expiration
     * executor with the other purgatories on it, instead of a set of its own. The purgatory keeps
     * its own name, counters, metrics and close; the runtime closes it if it is still open when the
     * runtime closes. Not combinable with the settings of the purgatory's own timer ({@code timer},
     * {@code timerSettings}, {@code expirationExecutor}, {@code clock}, {@code timerEnabled(false)},
     * {@code reaperEnabled(false)}).
     */
    public PurgatoryBuilder<T> runtime(PurgatoryRuntime runtime) {
        settings.runtime(runtime);
        return this;
    }

    /**
     * The tick, wheel size and back-pressure of the purgatory's own timer (default
     * {@link TimerSettings#DEFAULT}: a 1 ms tick, 1024 buckets, no back-pressure). With
     * back-pressure ({@link TimerSettings#withBackPressure}), while its expiries run more than the
     * bound behind their deadlines, a submission waits (at most the bound per call) before it is
     * taken, so a thread submitting faster than the purgatory can expire slows down and expiry
     * lateness stays near the bound. It blocks the submitting thread: never use it on an event
     * loop. The purgatory's own threads never wait, nor does anything it puts on the timer.
     */
    public PurgatoryBuilder<T> timerSettings(TimerSettings timerSettings) {
        settings.timerSettings(timerSettings);
        return this;
    }

    /**
     * Number of shards of the key space, a power of two from 1 to {@value #MAX_SHARDS} (default
     * {@value #DEFAULT_SHARDS}).
     */
    public PurgatoryBuilder<T> shards(int shards) {
        settings.shards(shards);
        return this;
    }

    /**
     * Whether the purgatory runs a reaper thread to advance its timer (default true, but false on
     * a {@link ManualTimer}, which its caller advances).
     */
    public PurgatoryBuilder<T> reaperEnabled(boolean reaperEnabled) {
        settings.reaperEnabled(reaperEnabled);
        return this;
    }

    /** Whether operations are put on a timer at all; without one they never expire (default true). */
    public PurgatoryBuilder<T> timerEnabled(boolean timerEnabled) {
        settings.timerEnabled(timerEnabled);
        return this;
    }

    /**
     * Where the purgatory's own timer runs expirations (default: a pool of 2 daemon threads
     * {@code <name>-expiration}, shut down on close). Not shut down by the purgatory.
     */
    public PurgatoryBuilder<T> expirationExecutor(Executor executor) {
        settings.expirationExecutor(executor);
        return this;
    }

    /**
     * Binds the purgatory's metrics with {@code factory} when it is built (default: none; the
     * counters of {@code stats()} only). With Micrometer: {@code metrics(MicrometerMetrics.of(registry))}
     * from the {@code purgatory-micrometer} module.
     */
    public PurgatoryBuilder<T> metrics(MetricsRecorderFactory factory) {
        settings.metrics(factory);
        return this;
    }

    /**
     * Watches each operation from its submission to its end (default: none; nothing allocated).
     * With Micrometer: {@code observer(MicrometerObservations.of(observationRegistry))} from the
     * {@code purgatory-micrometer} module, one observation per operation.
     */
    public PurgatoryBuilder<T> observer(WaitObserver observer) {
        settings.observer(observer);
        return this;
    }

    /**
     * Receives callback failures (default {@link OperationErrorHandler#processDefault()}: the
     * handler set for the whole process, which logs unless one was set).
     */
    public PurgatoryBuilder<T> errorHandler(OperationErrorHandler errorHandler) {
        settings.errorHandler(errorHandler);
        return this;
    }

    /** At most this many pending operations; beyond, {@link PurgatoryFullException}. 0: no limit (default). */
    public PurgatoryBuilder<T> maxPending(int maxPending) {
        settings.maxPending(maxPending);
        return this;
    }

    /**
     * Bounds each tenant's pending operations at {@code maxPendingPerTenant}, beside
     * {@link #maxPending} for all of them: an operation's tenant is what {@code tenantOf} gives it
     * (a client, an account, a shard of your own; null for none), and a submission beyond its
     * tenant's bound throws {@link TenantFullException}, so one tenant's flood is refused, not
     * queued, while the others' operations go on. The function is called once per submission,
     * before anything is taken; what it throws fails the submission with an
     * {@link IllegalArgumentException}. Its results are map keys (their {@code hashCode} and
     * {@code equals} are called as a JDK map calls them), held only while the tenant has pending
     * operations. See {@link Purgatory#topTenants}. Type the builder to type the function:
     * {@code DelayedOperationPurgatory.<Produce>builder("produce").tenants(Produce::clientId, 1_000)}.
     *
     * @throws NullPointerException if {@code tenantOf} is null
     * @throws IllegalArgumentException if {@code maxPendingPerTenant} is below 1
     */
    public PurgatoryBuilder<T> tenants(Function<? super T, ?> tenantOf, int maxPendingPerTenant) {
        Objects.requireNonNull(tenantOf, "tenantOf");
        @SuppressWarnings("unchecked") // the purgatory built takes only operations of a U extends T
        BiFunction<Operation, Object, Object> ofOperation = (op, firstKey) -> tenantOf.apply((T) op);
        settings.tenants(ofOperation, maxPendingPerTenant);
        return this;
    }

    /** What close() does with pending operations (default {@link ClosePolicy#EXPIRE}). */
    public PurgatoryBuilder<T> closePolicy(ClosePolicy closePolicy) {
        settings.closePolicy(closePolicy);
        return this;
    }

    /**
     * The clock of the purgatory's own timer and its duration metrics (default: the system clock,
     * or a ManualTimer's). For the own timer, {@code build()} refuses a
     * {@link io.purgatory.timer.ManualClock}: a test would move it while the timer's thread settles
     * what is due later, on that thread; give a {@code ManualTimer} on it to {@link #timer} instead.
     */
    public PurgatoryBuilder<T> clock(Clock clock) {
        settings.clock(clock);
        return this;
    }

    /**
     * Builds the purgatory. Its operation type is inferred from the assignment, so a chain needs no
     * type witness: {@code DelayedOperationPurgatory<MyOp> p = DelayedOperationPurgatory.builder("x")
     * .build();}. The builder's own type parameter only bounds it.
     *
     * @param <U> the type of operation the purgatory holds
     * @throws IllegalArgumentException if settings conflict: a given timer or runtime with settings of the
     *     purgatory's own timer (the message names them)
     * @throws IllegalStateException if the runtime given is closed
     */
    public <U extends T> DelayedOperationPurgatory<U> build() {
        return new DelayedOperationPurgatory<>(settings);
    }
}
