package io.purgatory;

import io.purgatory.internal.Engine;
import io.purgatory.internal.KeyedEvents;
import io.purgatory.internal.Operation;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.PurgatoryCounters;
import io.purgatory.internal.EngineConfig;
import io.purgatory.internal.UserCode;
import java.util.Arrays;
import java.util.Objects;

/**
 * The user's types as the engine calls them (UserCode's seams): an error handler, an observer, a metrics recorder, a
 * listener of unanswered events; and the public exceptions it throws. Each adapter only translates codes into the
 * public enums; the engine's boundary contains what they throw.
 */
final class Bridges {

    private static final Outcome[] OUTCOMES = {null, Outcome.COMPLETED, Outcome.EXPIRED, Outcome.CANCELLED};
    private static final WaitOutcome[] ENDS = WaitOutcome.values();

    private Bridges() {
    }

    /** {@code observer} as the engine starts and ends each wait with it; null if it is null. */
    static UserCode.Observer observer(WaitObserver observer) {
        if (observer == null) {
            return null;
        }
        return new UserCode.Observer() {
            @Override
            public Object started(String purgatory, Object[] keys, long timeoutMs) {
                return observer.started(new WaitStart(purgatory, Arrays.asList(keys), timeoutMs));
            }

            @Override
            public void ended(Object handle, Operation op, int end, Throwable failure) {
                Throwable failed = failure != null ? failure
                        : op instanceof KeyedWait<?> wait && end == WaitOutcome.COMPLETED.ordinal() ? wait.failure()
                                : null;
                observer.ended(handle, failed != null ? WaitOutcome.FAILED : ENDS[end], failed);
            }
        };
    }

    /**
     * Binds {@code engine}'s metrics with {@code factory}, reading {@code events} too if not null.
     *
     * @throws IllegalStateException if bound already, or closed
     */
    static void bind(Engine engine, MetricsRecorderFactory factory, KeyedEvents<?> events) {
        Objects.requireNonNull(factory, "factory");
        engine.bindMetrics(() -> recorder(factory, new MetricsSource(engine, events)));
    }

    /**
     * Binds the builder's metrics, if it was given any; if that fails, closes {@code engine} and
     * rethrows, so a failed build leaves nothing running.
     */
    static void bindAtBuild(Engine engine, MetricsRecorderFactory factory, KeyedEvents<?> events) {
        if (factory == null) {
            return;
        }
        try {
            bind(engine, factory, events);
        } catch (Throwable bindFailure) { // whatever the factory throws, nothing stays running
            engine.close();
            throw bindFailure;
        }
    }

    /** The refusals of submissions, as the engine throws them. */
    static final EngineConfig.Refusals REFUSALS = new EngineConfig.Refusals() {
        @Override
        public RuntimeException full(String purgatory, int maxPending) {
            return new PurgatoryFullException(purgatory, maxPending);
        }

        @Override
        public RuntimeException tenantFull(String purgatory, Object tenant, int maxPendingPerTenant) {
            return new TenantFullException(purgatory, UserCode.render(KeyRenderer.DEFAULT::render, tenant, purgatory),
                    maxPendingPerTenant);
        }
    };

    /** The counters' snapshot for {@code stats()}; each read O(1). */
    static PurgatoryStats stats(Engine engine) {
        PurgatoryCounters c = engine.counters();
        return new PurgatoryStats(engine.name(), c.pending(), c.entries(), c.keys(), c.completedWatched(),
                c.completedAtOnce(), c.settled(OperationState.EXPIRED), c.settled(OperationState.CANCELLED),
                c.callbackErrorTotal(), c.rejectedCount(), c.purgeCount(), engine.expirationsRefused());
    }

    /** The recorder {@code factory} creates for the purgatory {@code source} reads, as the engine records to it. */
    private static UserCode.Recorder recorder(MetricsRecorderFactory factory, MetricsSource source) {
        MetricsRecorder recorder = factory.create(source);
        if (recorder == null) {
            throw new NullPointerException("the MetricsRecorderFactory " + factory + " returned no recorder");
        }
        return new UserCode.Recorder() {
            @Override
            public void recordSettled(int outcome, long watchedNanos) {
                recorder.recordSettled(OUTCOMES[outcome], watchedNanos);
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
    }

    /** {@code listener} as keyed waits tell it of the events that found no wait; null if it is null. */
    static UserCode.EventListener events(UnansweredEventListener listener) {
        return listener == null ? null : (purgatory, key, value, late) -> listener.onUnanswered(purgatory, key, value,
                late ? UnansweredEventListener.Kind.LATE : UnansweredEventListener.Kind.UNANSWERED);
    }
}
