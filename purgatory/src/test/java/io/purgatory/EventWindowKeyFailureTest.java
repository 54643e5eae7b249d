package io.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The windows of early events ({@link KeyedWaitsBuilder#retainEvents}) with a key whose
 * {@code hashCode} throws once, as its newer event replaces the retained one: the call that used
 * the key fails, and the older event is still told once as what it was. (Keys follow the JDK
 * maps' contract: a key that throws or changes its hash as a window ends on the timer is not
 * defended against.)
 */
class EventWindowKeyFailureTest {

    private final ManualTimer timer = new ManualTimer();
    private final List<String> told = new ArrayList<>();
    private KeyedWaits<Object, String> waits;

    @AfterEach
    void close() {
        if (waits != null) {
            waits.close();
        }
        timer.close();
    }

    /** A key whose hashCode throws once, on the n-th call after {@link #failOnCall}. */
    static final class OnceFailingKey {
        private final AtomicInteger untilFailure = new AtomicInteger(-1);

        void failOnCall(int n) {
            untilFailure.set(n);
        }

        @Override
        public int hashCode() {
            if (untilFailure.get() > 0 && untilFailure.decrementAndGet() == 0) {
                throw new IllegalStateException("hashCode failed once");
            }
            return 7;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public String toString() {
            return "key";
        }
    }

    private KeyedWaitsBuilder builder() {
        return KeyedWaits.builder("windows").timer(timer)
                .unansweredEvents((p, k, v, kind) -> told.add(k + "=" + v + ":" + kind));
    }

    @Test
    void complete_keysHashCodeThrowsAsTheNewerEventIsPut_theOlderEventIsStillToldUnansweredOnce() {
        waits = builder().retainEvents(Duration.ofMillis(100), 10).build();
        OnceFailingKey key = new OnceFailingKey();
        waits.complete(key, "older");
        key.failOnCall(2); // 1: the retention's remove of the older event, 2: the put of the newer one

        assertThatThrownBy(() -> waits.complete(key, "newer")).hasMessageContaining("hashCode failed once");
        timer.advanceClock(100); // every window has ended

        assertThat(told).as("the older event answered no wait and left its window").containsExactly(
                "key=older:UNANSWERED");
        assertThat(waits.events().unanswered()).isOne();
        assertThat(waits.retainedEvents()).isZero();
        assertThat(timer.size()).isZero();
    }
}
