package io.purgatory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.timer.ManualTimer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The early events of keyed waits (EventRetention X3) on a manual timer, through the retention
 * itself: an event that leaves its window while held is judged by its last release, and told
 * unused only if no holder accounted for it.
 */
class EventRetentionTest {

    private static final long NO_POSITION = Long.MIN_VALUE;

    private final ManualTimer timer = new ManualTimer();
    private final RuntimeCore runtime = RuntimeCore.given("payments", timer, timer.clock(), false);

    @AfterEach
    void close() {
        runtime.close();
        timer.close();
    }

    /** X3: the verdict waits for the last holder, and a holder that took the event accounts for it. */
    @Test
    void retention_eventHeldWhileItLeaves_isToldByTheLastRelease_onlyIfUnused() {
        List<String> unused = new ArrayList<>();
        EventRetention<String> retention = new EventRetention<>("payments", 100, 10, runtime,
                (k, v) -> unused.add(k + "=" + v));
        EventRetention.Event<String> a = retention.retain("a", "1", NO_POSITION);
        retention.release(a, false);
        EventRetention.Event<String> heldA = retention.hold("a");
        EventRetention.Event<String> b = retention.retain("b", "2", NO_POSITION);
        retention.release(b, false);
        EventRetention.Event<String> heldB = retention.hold("b");

        timer.advanceClock(100); // both leave while held
        assertThat(unused).isEmpty();

        retention.release(heldA, true); // it answered the wait that held it
        retention.release(heldB, false);
        assertThat(unused).containsExactly("b=2");
        assertThat(retention.hold("b")).as("gone from the map").isNull();
    }

    @Test
    void retention_eventReplacedWhileItsCompleteStillHoldsIt_isToldAtThatRelease() {
        List<String> unused = new ArrayList<>();
        EventRetention<String> retention = new EventRetention<>("payments", 100, 10, runtime,
                (k, v) -> unused.add(k + "=" + v));
        EventRetention.Event<String> first = retention.retain("a", "1", NO_POSITION);
        EventRetention.Event<String> second = retention.retain("a", "2", NO_POSITION);
        assertThat(unused).as("its complete still visits the waits").isEmpty();

        retention.release(first, false);
        retention.release(second, true);

        assertThat(unused).containsExactly("a=1");
    }
}
