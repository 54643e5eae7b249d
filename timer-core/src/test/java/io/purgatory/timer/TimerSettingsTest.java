package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link TimerSettings}: one set of bounds and defaults, the same refusal from every timer. */
class TimerSettingsTest {

    @Test
    void default_isAOneMsTickAnd1024Buckets_kafkasTwenty() {
        assertThat(TimerSettings.DEFAULT).isEqualTo(new TimerSettings(1, 1024, Duration.ZERO));
        assertThat(TimerSettings.KAFKA).isEqualTo(new TimerSettings(1, 20, Duration.ZERO));
    }

    @Test
    void bounds_inclusive_areAccepted() {
        assertThat(TimerSettings.DEFAULT.withTickMs(1).withWheelSize(2)).isNotNull();
        assertThat(TimerSettings.DEFAULT.withTickMs(Timer.MAX_DELAY_MS).withWheelSize(TimerSettings.MAX_WHEEL_SIZE)
                .wheelSize()).isEqualTo(65536);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE, Timer.MAX_DELAY_MS + 1, Long.MAX_VALUE})
    void constructor_tickMsOutOfBounds_throwsIaeNamingItAndTheValue(long tickMs) {
        assertThatIllegalArgumentException().isThrownBy(() -> TimerSettings.DEFAULT.withTickMs(tickMs)
                .withWheelSize(20))
                .withMessage("tickMs must be between 1 and " + Timer.MAX_DELAY_MS + ": " + tickMs);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 0, -1, Integer.MIN_VALUE, 65537, 100_000, Integer.MAX_VALUE})
    void constructor_wheelSizeOutOfBounds_throwsIaeNamingItAndTheValue(int wheelSize) {
        assertThatIllegalArgumentException().isThrownBy(() -> TimerSettings.DEFAULT.withTickMs(1)
                .withWheelSize(wheelSize))
                .withMessage("wheelSize must be between 2 and 65536: " + wheelSize);
    }

    @Test
    void withers_eachField_changeItAloneAndValidateIt() {
        TimerSettings geometry = TimerSettings.DEFAULT.withTickMs(5).withWheelSize(64);

        assertThat(geometry).isEqualTo(TimerSettings.DEFAULT.withTickMs(5).withWheelSize(64));
        assertThat(TimerSettings.DEFAULT).as("immutable").isEqualTo(TimerSettings.DEFAULT.withTickMs(1)
                .withWheelSize(1024));
        assertThatIllegalArgumentException().isThrownBy(() -> geometry.withWheelSize(1))
                .withMessage("wheelSize must be between 2 and 65536: 1");
        assertThatIllegalArgumentException().isThrownBy(() -> geometry.withTickMs(0))
                .withMessageStartingWith("tickMs must be between 1 and ");
    }

    @Test
    void withBackPressure_zeroNegativeOrNull_zeroIsNoneTheOthersAreRefused() {
        assertThat(TimerSettings.DEFAULT.hasBackPressure()).isFalse();
        assertThat(TimerSettings.DEFAULT.withBackPressure(Duration.ofNanos(1)).backPressure())
                .as("rounded up by the duration rule").isEqualTo(Duration.ofMillis(1));
        assertThat(TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(5)).withBackPressure(Duration.ZERO)
                .hasBackPressure()).isFalse();
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TimerSettings.DEFAULT.withBackPressure(Duration.ofMillis(-5)))
                .withMessage("backPressure must be >= 0 (0: none): PT-0.005S");
        assertThatNullPointerException().isThrownBy(() -> TimerSettings.DEFAULT.withBackPressure(null))
                .withMessage("backPressure");
        assertThatIllegalArgumentException().as("a manual timer is advanced by its caller, whom it would hold back")
                .isThrownBy(() -> new ManualTimer(new ManualClock(),
                        TimerSettings.KAFKA.withBackPressure(Duration.ofMillis(5)), TaskErrorHandler.logging()))
                .withMessageContaining("backPressure does not apply to a ManualTimer");
    }

    @Test
    void everyTimer_wheelSizeOutOfBounds_refusesWithTheGeometrysMessage() {
        String message = "wheelSize must be between 2 and 65536: 100000";

        assertThatIllegalArgumentException().isThrownBy(() -> TimerSettings.DEFAULT.withWheelSize(100_000))
                .withMessage(message);
        assertThatIllegalArgumentException().isThrownBy(() -> new SystemTimer("t", 1, 100_000)).withMessage(message);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new ManualTimer(new ManualClock(), 1, 100_000, TaskErrorHandler.logging()))
                .withMessage(message);
    }

    @Test
    void builderSettings_givenTickAndSize_areTheWheels() {
        try (SystemTimer timer = SystemTimer.builder("shaped").settings(TimerSettings.DEFAULT.withTickMs(4)
                .withWheelSize(8)).build()) {
            assertThat(timer.engine().wheel().tickMs()).isEqualTo(4);
            assertThat(timer.engine().wheel().intervalMs()).isEqualTo(32);
        }
        try (ManualTimer timer = new ManualTimer(new ManualClock(), TimerSettings.DEFAULT.withTickMs(3)
                .withWheelSize(16),
                TaskErrorHandler.logging())) {
            assertThat(timer.engine().wheel().intervalMs()).isEqualTo(48);
        }
    }
}
