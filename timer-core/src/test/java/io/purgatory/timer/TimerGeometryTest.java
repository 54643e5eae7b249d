package io.purgatory.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link TimerGeometry}: one set of bounds and defaults, the same refusal from every timer. */
class TimerGeometryTest {

    @Test
    void default_isAOneMsTickAnd1024Buckets_kafkasTwenty() {
        assertThat(TimerGeometry.DEFAULT).isEqualTo(new TimerGeometry(1, 1024));
        assertThat(TimerGeometry.KAFKA).isEqualTo(new TimerGeometry(1, 20));
    }

    @Test
    void bounds_inclusive_areAccepted() {
        assertThat(new TimerGeometry(1, 2)).isNotNull();
        assertThat(new TimerGeometry(Timer.MAX_DELAY_MS, TimerGeometry.MAX_WHEEL_SIZE).wheelSize()).isEqualTo(65536);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE, Timer.MAX_DELAY_MS + 1, Long.MAX_VALUE})
    void constructor_tickMsOutOfBounds_throwsIaeNamingItAndTheValue(long tickMs) {
        assertThatIllegalArgumentException().isThrownBy(() -> new TimerGeometry(tickMs, 20))
                .withMessage("tickMs must be between 1 and " + Timer.MAX_DELAY_MS + ": " + tickMs);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 0, -1, Integer.MIN_VALUE, 65537, 100_000, Integer.MAX_VALUE})
    void constructor_wheelSizeOutOfBounds_throwsIaeNamingItAndTheValue(int wheelSize) {
        assertThatIllegalArgumentException().isThrownBy(() -> new TimerGeometry(1, wheelSize))
                .withMessage("wheelSize must be between 2 and 65536: " + wheelSize);
    }

    @Test
    void withers_changeOneFieldAndValidateIt() {
        TimerGeometry geometry = TimerGeometry.DEFAULT.withTickMs(5).withWheelSize(64);

        assertThat(geometry).isEqualTo(new TimerGeometry(5, 64));
        assertThat(TimerGeometry.DEFAULT).as("immutable").isEqualTo(new TimerGeometry(1, 1024));
        assertThatIllegalArgumentException().isThrownBy(() -> geometry.withWheelSize(1))
                .withMessage("wheelSize must be between 2 and 65536: 1");
        assertThatIllegalArgumentException().isThrownBy(() -> geometry.withTickMs(0))
                .withMessageStartingWith("tickMs must be between 1 and ");
    }

    @Test
    void everyTimer_wheelSizeOutOfBounds_refusesWithTheGeometrysMessage() {
        String message = "wheelSize must be between 2 and 65536: 100000";

        assertThatIllegalArgumentException().isThrownBy(() -> SystemTimer.builder("t").wheelSize(100_000))
                .withMessage(message);
        assertThatIllegalArgumentException().isThrownBy(() -> new SystemTimer("t", 1, 100_000)).withMessage(message);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new ManualTimer(new ManualClock(), 1, 100_000, TaskErrorHandler.logging()))
                .withMessage(message);
    }

    @Test
    void builderGeometry_givenGeometry_isTheWheelsTickAndSize() {
        try (SystemTimer timer = SystemTimer.builder("shaped").geometry(new TimerGeometry(4, 8)).build()) {
            assertThat(timer.engine().wheel().tickMs()).isEqualTo(4);
            assertThat(timer.engine().wheel().intervalMs()).isEqualTo(32);
        }
        try (ManualTimer timer = new ManualTimer(new ManualClock(), new TimerGeometry(3, 16),
                TaskErrorHandler.logging())) {
            assertThat(timer.engine().wheel().intervalMs()).isEqualTo(48);
        }
    }
}
