package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.micrometer.core.instrument.Meter;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.PurgatoryBuilder;
import io.purgatory.micrometer.FaultyRegistry.Function;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A registry whose {@code remove} throws for one meter: closing goes on past it, removes every
 * other meter, reports the failure once without passing it to the purgatory, and the name binds
 * again once the meter that stayed is gone.
 */
class CloseRemovalFailureTest {

    private final ManualTimer timer = new ManualTimer();
    private final FaultyRegistry registry = new FaultyRegistry();

    @AfterEach
    void tearDown() {
        timer.close();
        registry.close();
    }

    @Test
    void close_removeThrowsForOneMeter_removesEveryOtherReportsOnceAndTheNameBindsAgainOnceItIsGone() {
        DelayedOperationPurgatory<Op> purgatory = builder().build();
        purgatory.tryCompleteElseWatch(new Op(1_000), List.of("k"));
        int registered = meters("metered").size();
        assertThat(registered).as("meters of one purgatory, histogram gauges included").isGreaterThan(60);
        registry.failing(Function.REMOVE, "purgatory.pending", () -> new IllegalStateException("remove failed"));

        try (LogCapture log = new LogCapture(PurgatoryMeters.class)) {
            purgatory.close();

            assertThat(purgatory.isClosed()).isTrue();
            assertThat(purgatory.stats().expired()).as("the close policy still settled the operation").isEqualTo(1);
            assertThat(meters("metered")).extracting(m -> m.getId().getName()).containsExactly("purgatory.pending");
            List<ILoggingEvent> errors = log.events().stream().filter(e -> e.getLevel() == Level.ERROR).toList();
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0).getFormattedMessage()).contains("'metered'", "purgatory.pending",
                    "1 of its " + (3 + 3 + 1 + 1 + 4 + 3) + " meters");
        }

        assertThatThrownBy(() -> builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("purgatory.pending").hasMessageContaining("'metered'");
        registry.heal();
        registry.remove(meters("metered").get(0));
        try (DelayedOperationPurgatory<Op> again = builder().build()) {
            assertThat(again.hasMetrics()).isTrue();
            assertThat(meters("metered")).hasSize(registered);
        }
    }

    private PurgatoryBuilder<Op> builder() {
        return DelayedOperationPurgatory.<Op>builder("metered").timer(timer).reaperEnabled(false)
                .metrics(MicrometerMetrics.of(registry));
    }

    private List<Meter> meters(String purgatory) {
        return registry.getMeters().stream()
                .filter(m -> purgatory.equals(m.getId().getTag("purgatory"))).toList();
    }
}
