package io.purgatory.micrometer;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link ObservationHandler} for a real {@code ObservationRegistry} that records every
 * observation it is told of, in start order: how many times it was started, stopped and given an
 * error, on which threads, and its name and key values as they were when it stopped.
 */
final class ObservationRecorder implements ObservationHandler<Observation.Context> {

    /** One observation, as the handler saw it. */
    static final class Recorded {
        final Observation.Context context;
        final Thread startThread;
        int starts;
        int stops;
        int errors;
        Thread stopThread;
        String name;
        String contextualName;
        Map<String, String> low = Map.of();
        Map<String, String> high = Map.of();

        Recorded(Observation.Context context) {
            this.context = context;
            this.startThread = Thread.currentThread();
        }

        @Override
        public String toString() {
            return name + "(" + contextualName + ") " + low + " " + high + ", starts " + starts + ", stops " + stops
                    + ", errors " + errors;
        }
    }

    private final List<Recorded> recorded = new ArrayList<>();

    /** Every observation seen, in start order. */
    synchronized List<Recorded> recorded() {
        return List.copyOf(recorded);
    }

    @Override
    public synchronized void onStart(Observation.Context context) {
        Recorded r = new Recorded(context);
        r.starts++;
        recorded.add(r);
    }

    @Override
    public synchronized void onError(Observation.Context context) {
        find(context).errors++;
    }

    @Override
    public synchronized void onStop(Observation.Context context) {
        Recorded r = find(context);
        r.stops++;
        r.stopThread = Thread.currentThread();
        r.name = context.getName();
        r.contextualName = context.getContextualName();
        r.low = map(context.getLowCardinalityKeyValues());
        r.high = map(context.getHighCardinalityKeyValues());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return true;
    }

    private Recorded find(Observation.Context context) {
        for (Recorded r : recorded) {
            if (r.context == context) {
                return r;
            }
        }
        throw new AssertionError("never started: " + context);
    }

    private static Map<String, String> map(Iterable<KeyValue> keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        keyValues.forEach(kv -> map.put(kv.getKey(), kv.getValue()));
        return map;
    }
}
