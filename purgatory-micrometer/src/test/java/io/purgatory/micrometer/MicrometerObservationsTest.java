package io.purgatory.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.purgatory.ClosePolicy;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitOutcome;
import io.purgatory.WaitStart;
import io.purgatory.micrometer.ObservationRecorder.Recorded;
import io.purgatory.testsupport.LogCapture;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MicrometerObservations} on real purgatories, a {@link ManualTimer} and a real
 * {@link ObservationRegistry}: every terminal path stops its wait's observation exactly once, with
 * its outcome, key values and error; the parent is the observation current where the wait was
 * made; conventions replace the default; a registry that observes nothing gets no handle.
 */
class MicrometerObservationsTest {

    private static final Duration TIMEOUT = Duration.ofMillis(100);

    private final ManualTimer timer = new ManualTimer();
    private final ObservationRecorder recorder = new ObservationRecorder();
    private final ObservationRegistry registry = ObservationRegistry.create();
    /** The core logs what an observer throws: nothing may be logged here. */
    private final LogCapture coreLog = new LogCapture(DelayedOperationPurgatory.class);

    MicrometerObservationsTest() {
        registry.observationConfig().observationHandler(recorder);
    }

    @AfterEach
    void nothingLogged() {
        coreLog.close();
        assertThat(coreLog.events()).as("what the core logged").isEmpty();
    }

    @Test
    void keyedWaits_everyTerminalPath_eachObservationStoppedOnceWithItsOutcome() {
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .retainEvents(Duration.ofSeconds(30), 100).observer(MicrometerObservations.of(registry)).build();
        IllegalStateException refused = new IllegalStateException("payment refused");

        CompletableFuture<String> completed = waits.await("order-1", TIMEOUT);
        waits.complete("order-1", "paid");
        waits.complete("order-2", "paid early");
        CompletableFuture<String> atOnce = waits.await("order-2", TIMEOUT);
        CompletableFuture<String> expired = waits.await("order-3", TIMEOUT);
        timer.advanceClock(100);
        waits.await("order-4", TIMEOUT).cancel(true);
        CompletableFuture<String> failed = waits.await("order-5", TIMEOUT);
        waits.completeExceptionally("order-5", refused);
        CompletableFuture<String> closed = waits.await("order-6", TIMEOUT);
        waits.close();

        assertThat(List.of(completed, atOnce, expired, failed, closed)).allMatch(CompletableFuture::isDone);
        List<Recorded> observations = recorder.recorded();
        assertThat(observations).extracting(r -> r.low.get("outcome")).containsExactly("completed",
                "completed.first.try", "expired", "cancelled", "failed", "closed");
        assertThat(observations).extracting(r -> r.high.get("purgatory.keys")).containsExactly("order-1",
                "order-2", "order-3", "order-4", "order-5", "order-6");
        assertThat(observations).allSatisfy(r -> {
            assertThat(r.starts).as("%s started", r).isEqualTo(1);
            assertThat(r.stops).as("%s stopped", r).isEqualTo(1);
            assertThat(r.name).isEqualTo("purgatory.wait");
            assertThat(r.contextualName).isEqualTo("payments wait");
            assertThat(r.low).containsEntry("purgatory", "payments").hasSize(2);
            assertThat(r.high).containsEntry("purgatory.timeout.ms", "100").hasSize(2);
            assertThat(r.context).isInstanceOf(WaitObservationContext.class);
        });
        Recorded failure = observations.get(4);
        assertThat(failure.errors).isEqualTo(1);
        assertThat(failure.context.getError()).isSameAs(refused);
        assertThat(observations).filteredOn(r -> r != failure).allSatisfy(r -> {
            assertThat(r.errors).isZero();
            assertThat(r.context.getError()).isNull();
        });
        assertThat(((WaitObservationContext) observations.get(2).context).outcome()).isEqualTo(WaitOutcome.EXPIRED);
    }

    @Test
    void operations_everyTerminalPath_eachObservationStoppedOnceWithItsOutcome() {
        DelayedOperationPurgatory<Op> purgatory = DelayedOperationPurgatory.<Op>builder("produce").timer(timer)
                .closePolicy(ClosePolicy.CANCEL).observer(MicrometerObservations.of(registry)).build();
        Op checked = new Op(100);
        purgatory.tryCompleteElseWatch(checked, List.of("b", "c"));
        checked.ready = true;
        purgatory.checkAndComplete("c");
        Op atOnce = new Op(100);
        atOnce.ready = true;
        purgatory.tryCompleteElseWatch(atOnce, List.of("a"));
        purgatory.tryCompleteElseWatch(new Op(100), List.of("d"));
        timer.advanceClock(100);
        purgatory.tryCompleteElseWatch(new Op(100), List.of("e"));
        purgatory.cancelForKey("e");
        AtomicInteger hashes = new AtomicInteger();
        Object failsWhenWatched = new Object() {
            @Override
            public int hashCode() {
                if (hashes.incrementAndGet() == 2) {
                    throw new IllegalStateException("hashCode failed");
                }
                return 1;
            }

            @Override
            public String toString() {
                return "bad key";
            }
        };
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(new Op(100), List.of("f", failsWhenWatched)))
                .isInstanceOf(IllegalArgumentException.class);
        purgatory.tryCompleteElseWatch(new Op(100), List.of("g"));
        purgatory.close();

        List<Recorded> observations = recorder.recorded();
        assertThat(observations).extracting(r -> r.low.get("outcome")).containsExactly("completed",
                "completed.first.try", "expired", "cancelled", "failed", "closed");
        assertThat(observations).extracting(r -> r.high.get("purgatory.keys")).containsExactly("b, c", "a", "d",
                "e", "f, bad key", "g");
        assertThat(observations).allSatisfy(r -> {
            assertThat(r.starts).isEqualTo(1);
            assertThat(r.stops).isEqualTo(1);
            assertThat(r.low).containsEntry("purgatory", "produce");
        });
        assertThat(observations.get(4).errors).isEqualTo(1);
        assertThat(observations.get(4).context.getError()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void started_insideARequestsObservation_isItsChild_andStopsOnTheThreadThatAnswers() throws Exception {
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();
        Observation request = Observation.start("http.server.requests", registry);
        CompletableFuture<String> wait;
        try (Observation.Scope scope = request.openScope()) {
            wait = waits.await("order-42", TIMEOUT);
            assertThat(registry.getCurrentObservation()).as("no scope of the wait left open")
                    .isSameAs(scope.getCurrentObservation()).isSameAs(request);
        }
        Thread answering = new Thread(() -> waits.complete("order-42", "paid"), "payment-listener");
        answering.start();
        answering.join();
        request.stop();

        assertThat(wait).isCompletedWithValue("paid");
        Recorded waitObservation = recorder.recorded().get(1);
        assertThat(waitObservation.name).isEqualTo("purgatory.wait");
        assertThat(waitObservation.context.getParentObservation()).isSameAs(request);
        assertThat(waitObservation.startThread).isSameAs(Thread.currentThread());
        assertThat(waitObservation.stopThread).isSameAs(answering);
        assertThat(waitObservation.stops).isEqualTo(1);
        waits.close();
    }

    @Test
    void conventions_given_replaceTheRegistrysWhichReplacesTheDefault() {
        RegistryWide registryWide = new RegistryWide();
        WaitObservationConvention own = new DefaultWaitObservationConvention() {
            @Override
            public String getContextualName(WaitObservationContext context) {
                return "awaiting " + context.keys();
            }

            @Override
            public io.micrometer.common.KeyValues getLowCardinalityKeyValues(WaitObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("region", "eu");
            }
        };
        registry.observationConfig().observationConvention(registryWide);
        KeyedWaits<String, String> byRegistry = KeyedWaits.builder("by-registry").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();
        KeyedWaits<String, String> byOwn = KeyedWaits.builder("by-own").timer(timer)
                .observer(MicrometerObservations.of(registry).withConvention(own)).build();

        CompletableFuture<String> first = byRegistry.await("k", TIMEOUT);
        CompletableFuture<String> second = byOwn.await("k", TIMEOUT);
        byRegistry.close();
        byOwn.close();

        assertThat(List.of(first, second)).allMatch(CompletableFuture::isCompletedExceptionally);

        List<Recorded> observations = recorder.recorded();
        assertThat(observations.get(0).name).isEqualTo("registry.wide.wait");
        assertThat(observations.get(1).name).isEqualTo("purgatory.wait");
        assertThat(observations.get(1).contextualName).isEqualTo("awaiting [k]");
        assertThat(observations.get(1).low).isEqualTo(Map.of("purgatory", "by-own", "outcome", "closed",
                "region", "eu"));
    }

    /** A convention for every wait observed through the registry. */
    static final class RegistryWide extends DefaultWaitObservationConvention
            implements GlobalObservationConvention<WaitObservationContext> {
        @Override
        public String getName() {
            return "registry.wide.wait";
        }
    }

    @Test
    void started_registryObservesNothing_noHandle_andTheWaitsAreAnsweredAsWithout() {
        ObservationRegistry withoutHandlers = ObservationRegistry.create();
        ObservationRegistry turnedOff = ObservationRegistry.create();
        turnedOff.observationConfig().observationHandler(recorder)
                .observationPredicate((name, context) -> !name.startsWith("purgatory."));
        WaitStart start = new WaitStart("payments", List.of("order-1"), 100);

        assertThat(MicrometerObservations.of(ObservationRegistry.NOOP).started(start)).isNull();
        assertThat(MicrometerObservations.of(withoutHandlers).started(start)).isNull();
        assertThat(MicrometerObservations.of(turnedOff).started(start)).isNull();

        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(turnedOff)).build();
        CompletableFuture<String> answered = waits.await("order-1", TIMEOUT);
        waits.complete("order-1", "paid");
        assertThat(answered).isCompletedWithValue("paid");
        assertThat(recorder.recorded()).isEmpty();
        waits.close();
    }

    @Test
    void meterHandler_timesEachWaitAsPurgatoryWait_taggedByPurgatoryAndOutcome() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(registry)).build();

        List<CompletableFuture<String>> answers = List.of(waits.await("order-1", TIMEOUT),
                waits.await("order-2", TIMEOUT), waits.await("order-3", TIMEOUT));
        LongTaskTimer active = meters.get("purgatory.wait.active").tag("purgatory", "payments").longTaskTimer();
        assertThat(active.activeTasks()).isEqualTo(3);
        timer.advanceClock(50);
        waits.complete("order-1", "paid");
        timer.advanceClock(50);

        assertThat(answers).allMatch(CompletableFuture::isDone);
        assertThat(meters.get("purgatory.wait").tags("purgatory", "payments", "outcome", "completed", "error", "none")
                .timer().count()).isEqualTo(1);
        assertThat(meters.get("purgatory.wait").tags("purgatory", "payments", "outcome", "expired").timer().count())
                .isEqualTo(2);
        assertThat(meters.find("purgatory.wait").tagKeys("purgatory.keys").meters()).as("keys are never tags")
                .isEmpty();
        assertThat(active.activeTasks()).isZero();
        waits.close();
    }

    @Test
    void observations_testObservationRegistry_validateEachWaitsLifecycle() {
        TestObservationRegistry test = TestObservationRegistry.create();
        KeyedWaits<String, String> waits = KeyedWaits.builder("payments").timer(timer)
                .observer(MicrometerObservations.of(test)).build();

        CompletableFuture<String> answered = waits.await("order-1", TIMEOUT);
        waits.complete("order-1", "paid");
        CompletableFuture<String> closed = waits.await("order-2", TIMEOUT);
        waits.close();

        assertThat(answered).isCompletedWithValue("paid");
        assertThat(closed).isCompletedExceptionally();

        TestObservationRegistryAssert.assertThat(test)
                .hasNumberOfObservationsWithNameEqualTo("purgatory.wait", 2)
                .forAllObservationsWithNameEqualTo("purgatory.wait", context -> context
                        .hasLowCardinalityKeyValueWithKey("outcome")
                        .hasHighCardinalityKeyValueWithKey("purgatory.keys")
                        .doesNotHaveHighCardinalityKeyValueWithKey("outcome"))
                .hasAnObservation(context -> context.hasContextualNameEqualTo("payments wait")
                        .hasLowCardinalityKeyValue("outcome", "completed")
                        .hasHighCardinalityKeyValue("purgatory.keys", "order-1"))
                .hasObservationWithNameEqualTo("purgatory.wait").that().hasBeenStarted().hasBeenStopped();
    }
}
