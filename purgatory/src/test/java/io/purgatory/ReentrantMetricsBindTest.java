package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * bindMetrics' contract ("throws IllegalStateException if metrics are already bound, or the
 * purgatory is closed") and promise 2 of docs/reliability.md, against a MetricsRecorderFactory
 * that calls back into the purgatory from {@code create}. Engine.bindMetrics checks "closed" under
 * the close lock and then calls the factory; the lock is reentrant, so a close() or a second
 * bindMetrics made from inside {@code create} goes through, and the outer bind then stores its
 * recorder regardless: a recorder bound on a closed purgatory, or one overwritten, that no close
 * ever closes (its meters stay registered).
 */
class ReentrantMetricsBindTest {

    /** A recorder that counts its closes. */
    static final class CountingRecorder implements MetricsRecorder {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void recordSettled(Outcome outcome, long watchedNanos) {
        }

        @Override
        public void recordLateness(long latenessNanos) {
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private static DelayedOperationPurgatory<DelayedOperation> purgatory(String name) {
        return DelayedOperationPurgatory.builder(name).timerEnabled(false).reaperEnabled(false).build();
    }

    @Test
    void bindMetrics_theFactoryClosesThePurgatory_theRecorderItCreatedIsClosed() {
        DelayedOperationPurgatory<DelayedOperation> p = purgatory("close-in-create");
        CountingRecorder recorder = new CountingRecorder();

        try {
            p.bindMetrics(source -> {
                p.close(); // a shutdown while a framework binds
                return recorder;
            });
        } catch (IllegalStateException refused) {
            // refusing a bind whose purgatory closed meanwhile is fine, if the recorder is closed
        }

        assertThat(p.isClosed()).isTrue();
        assertThat(p.hasMetrics()).as("metrics bound on a closed purgatory").isFalse();
        assertThat(recorder.closes).as("closes of the recorder the factory created").hasValue(1);
    }

    @Test
    void bindMetrics_theFactoryBindsAgain_closeClosesEveryRecorderCreated() {
        DelayedOperationPurgatory<DelayedOperation> p = purgatory("bind-in-create");
        CountingRecorder inner = new CountingRecorder();
        CountingRecorder outer = new CountingRecorder();
        AtomicInteger innerCreated = new AtomicInteger();

        try {
            p.bindMetrics(source -> {
                try {
                    p.bindMetrics(again -> {
                        innerCreated.incrementAndGet();
                        return inner;
                    });
                } catch (IllegalStateException refused) {
                    // refusing the second bind is fine
                }
                return outer;
            });
        } catch (IllegalStateException refused) {
            // refusing the first once a second came is fine too, if what was created is closed
        }
        p.close();

        assertThat(outer.closes).as("closes of the outer recorder").hasValue(1);
        assertThat(inner.closes).as("closes of the inner recorder, if created").hasValue(innerCreated.get());
    }
}
