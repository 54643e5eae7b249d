package io.purgatory;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A setting that cannot apply beside another is refused at build, naming both, never silently
 * ignored: without a timer there is no timer to set up. The fourth review's low item.
 */
class InapplicableSettingsTest {

    @Test
    void build_timerDisabledWithTimerSettings_isRefusedNamingBoth() {
        TimerSettings pressed = TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(10));

        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("untimed").timerEnabled(false)
                .timerSettings(pressed).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timerEnabled(false) cannot be combined with [timerSettings]");
    }

    @Test
    void build_timerDisabledWithAnExpirationExecutor_isRefusedNamingBoth() {
        assertThatThrownBy(() -> DelayedOperationPurgatory.builder("untimed").timerEnabled(false)
                .expirationExecutor(Runnable::run).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("timerEnabled(false) cannot be combined with [expirationExecutor]");
    }
}
