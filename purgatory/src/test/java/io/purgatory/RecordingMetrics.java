package io.purgatory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link MetricsRecorderFactory} for the tests of the core, which has no metrics library: it
 * keeps, per purgatory name, the source it was given and what its recorder received.
 */
final class RecordingMetrics implements MetricsRecorderFactory {

    private final Map<String, Recorder> byName = new ConcurrentHashMap<>();

    @Override
    public MetricsRecorder create(MetricsSource source) {
        Recorder recorder = new Recorder(source);
        if (byName.putIfAbsent(source.name(), recorder) != null) {
            throw new IllegalStateException("already bound: " + source.name());
        }
        return recorder;
    }

    /** The recorder of the purgatory named {@code name}. */
    Recorder of(String name) {
        Recorder recorder = byName.get(name);
        if (recorder == null) {
            throw new AssertionError("no purgatory named '" + name + "' was bound; bound: " + byName.keySet());
        }
        return recorder;
    }

    /** Whether every purgatory ever bound has closed its recorder (nothing left registered). */
    boolean allClosed() {
        return byName.values().stream().allMatch(Recorder::isClosed);
    }

    /** How many purgatories were bound. */
    int boundCount() {
        return byName.size();
    }

    boolean isBound(String name) {
        Recorder recorder = byName.get(name);
        return recorder != null && !recorder.closed.get();
    }

    /** What one purgatory's recorder received. */
    static final class Recorder implements MetricsRecorder {
        final MetricsSource source;
        private final LongAdder[] counts = new LongAdder[Outcome.values().length];
        private final AtomicLong[] maxNanos = new AtomicLong[Outcome.values().length];
        private final LongAdder[] totalNanos = new LongAdder[Outcome.values().length];
        final LongAdder lateCount = new LongAdder();
        final AtomicLong lateMaxNanos = new AtomicLong(-1);
        final AtomicBoolean closed = new AtomicBoolean();
        final LongAdder recordsAfterClose = new LongAdder();

        Recorder(MetricsSource source) {
            this.source = source;
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
                maxNanos[i] = new AtomicLong(-1);
                totalNanos[i] = new LongAdder();
            }
        }

        @Override
        public void recordSettled(Outcome outcome, long watchedNanos) {
            if (closed.get()) {
                recordsAfterClose.increment();
            }
            counts[outcome.ordinal()].increment();
            totalNanos[outcome.ordinal()].add(watchedNanos);
            maxNanos[outcome.ordinal()].accumulateAndGet(watchedNanos, Math::max);
        }

        @Override
        public void recordLateness(long latenessNanos) {
            if (closed.get()) {
                recordsAfterClose.increment();
            }
            lateCount.increment();
            lateMaxNanos.accumulateAndGet(latenessNanos, Math::max);
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                throw new AssertionError("closed twice: " + source.name());
            }
        }

        long count(Outcome outcome) {
            return counts[outcome.ordinal()].sum();
        }

        long totalNanos(Outcome outcome) {
            return totalNanos[outcome.ordinal()].sum();
        }

        long maxNanos(Outcome outcome) {
            return maxNanos[outcome.ordinal()].get();
        }

        boolean isClosed() {
            return closed.get();
        }
    }
}
