package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MicrometerObservations} with an observation handler of the application's that throws
 * when a wait's observation starts, errs or stops: the wait is answered as usual, and no other
 * handler is left with an observation it started and nobody stops (MicrometerObservations M10,
 * M13, M14): the active count comes back.
 */
class ObservationHandlerFailureTest {

    /** Throws on every start; handles every context. */
    private static final class FailingOnStart implements ObservationHandler<Observation.Context> {
        @Override
        public void onStart(Observation.Context context) {
            throw new IllegalStateException("handler failed on start");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    /** Throws on every error, or on every stop; handles every context. */
    private static final class Failing implements ObservationHandler<Observation.Context> {
        private final boolean onError;

        Failing(boolean onError) {
            this.onError = onError;
        }

        @Override
        public void onError(Observation.Context context) {
            if (onError) {
                throw new IllegalStateException("handler failed on error");
            }
        }

        @Override
        public void onStop(Observation.Context context) {
            if (!onError) {
                throw new IllegalStateException("handler failed on stop");
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    /** Each handler failure is reported once, as an ERROR of the purgatory's logger: asserted, not printed. */
    private final LogCapture log = new LogCapture(DelayedOperationPurgatory.class);

    @AfterEach
    void eachFailureWasReported() {
        try {
            assertThat(log.events()).as("the handler's failure, reported").isNotEmpty()
                    .allSatisfy(e -> assertThat(e.getFormattedMessage()).contains("its WaitObserver threw"));
        } finally {
            log.close();
        }
    }

    @Test
    void ended_aHandlerThrowsOnError_theObservationIsStillStoppedAndRecorded() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters))
                .observationHandler(new Failing(true));
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();
        try {
            CompletableFuture<String> answer = waits.await("order-1", Duration.ofSeconds(5));
            assertThat(waits.completeExceptionally("order-1", new IllegalArgumentException("declined"))).isOne();

            assertThat(answer).isCompletedExceptionally();
            assertThat(meters.find("purgatory.wait.active").longTaskTimer().activeTasks())
                    .as("the observation was stopped though a handler threw in error()").isZero();
            assertThat(meters.find("purgatory.wait").timer().count()).isOne();
        } finally {
            waits.close();
            timer.close();
        }
    }

    @Test
    void ended_aHandlerAfterTheMeterHandlerThrowsOnStop_theActiveCountComesBack() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters))
                .observationHandler(new Failing(false)); // stopped first: Micrometer stops in reverse order
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();
        try {
            CompletableFuture<String> answer = waits.await("order-1", Duration.ofSeconds(5));
            assertThat(waits.complete("order-1", "paid")).isOne();

            assertThat(answer).isCompletedWithValue("paid");
            assertThat(meters.find("purgatory.wait.active").longTaskTimer().activeTasks())
                    .as("the meter handler's active sample, which the throwing handler kept from stopping").isZero();
        } finally {
            waits.close();
            timer.close();
        }
    }

    @Test
    void started_aHandlerAfterTheMeterHandlerThrowsOnStart_theWaitIsAnsweredAndNoActiveTaskIsLeft() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters))
                .observationHandler(new FailingOnStart());
        ManualTimer timer = new ManualTimer();
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();
        try {
            CompletableFuture<String> answer = waits.await("order-1", Duration.ofSeconds(5));
            assertThat(waits.complete("order-1", "paid")).isOne();

            assertThat(answer).isCompletedWithValue("paid");
            LongTaskTimer active = meters.find("purgatory.wait.active").longTaskTimer();
            assertThat(active == null ? 0 : active.activeTasks()).as("observations started and never stopped")
                    .isZero();
        } finally {
            waits.close();
            timer.close();
        }
    }
}
