package io.purgatory.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * A {@link SimpleMeterRegistry} whose functions throw what a test tells them to, for the meters of
 * one name (or for any meter), until the test clears the faults: registering a gauge, a timer or a
 * function counter, listing the meters (what a search reads), removing a meter.
 */
final class FaultyRegistry extends SimpleMeterRegistry {

    /** The registry's functions a binding calls. */
    enum Function { REGISTER_GAUGE, REGISTER_TIMER, REGISTER_FUNCTION_COUNTER, GET_METERS, REMOVE }

    /** What a function throws, and for which meter name (null: any). */
    record Fault(Function function, String meterName, Supplier<? extends Throwable> thrown) {
    }

    private final List<Fault> faults = new CopyOnWriteArrayList<>();

    /** From now on, {@code function} throws {@code thrown} for the meters named {@code meterName} (null: any). */
    FaultyRegistry failing(Function function, String meterName, Supplier<? extends Throwable> thrown) {
        faults.add(new Fault(function, meterName, thrown));
        return this;
    }

    /** No function throws any more. */
    void heal() {
        faults.clear();
    }

    @Override
    protected <T> Gauge newGauge(Meter.Id id, T obj, ToDoubleFunction<T> valueFunction) {
        hit(Function.REGISTER_GAUGE, id.getName());
        return super.newGauge(id, obj, valueFunction);
    }

    @Override
    protected Timer newTimer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
        hit(Function.REGISTER_TIMER, id.getName());
        return super.newTimer(id, config, pauseDetector);
    }

    @Override
    protected <T> FunctionCounter newFunctionCounter(Meter.Id id, T obj, ToDoubleFunction<T> countFunction) {
        hit(Function.REGISTER_FUNCTION_COUNTER, id.getName());
        return super.newFunctionCounter(id, obj, countFunction);
    }

    @Override
    public List<Meter> getMeters() {
        hit(Function.GET_METERS, null);
        return super.getMeters();
    }

    @Override
    public Meter remove(Meter.Id id) {
        hit(Function.REMOVE, id.getName());
        return super.remove(id);
    }

    private void hit(Function function, String meterName) {
        for (Fault f : faults) {
            if (f.function() == function && (f.meterName() == null || f.meterName().equals(meterName))) {
                throwUnchecked(f.thrown().get());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }
}
