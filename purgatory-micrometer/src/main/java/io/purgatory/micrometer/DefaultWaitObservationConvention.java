package io.purgatory.micrometer;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.purgatory.WaitOutcome;
import java.util.List;

/**
 * The default convention of a wait's observation: named {@value #NAME}, its span named
 * {@code "<purgatory> wait"}; low-cardinality key values {@value #PURGATORY} (the purgatory's name)
 * and, once it ended, {@value #OUTCOME} ({@code completed}, {@code completed.first.try},
 * {@code expired}, {@code cancelled}, {@code closed} or {@code failed}); high-cardinality key values
 * {@value #KEYS} (the keys, by {@code String.valueOf}, joined by {@code ", "}) and {@value #TIMEOUT}.
 * Keys are never low-cardinality: a metric tagged by order id is a metric per order. To add a key
 * value, extend it and add to {@code super}'s. Stateless and thread-safe.
 */
public class DefaultWaitObservationConvention implements WaitObservationConvention {

    /** The observation's name; Micrometer's meter handler times it as the meter {@code purgatory.wait}. */
    public static final String NAME = "purgatory.wait";
    /** The key of the purgatory's name (low cardinality), as on the {@code purgatory.*} meters. */
    public static final String PURGATORY = "purgatory";
    /** The key of how the wait ended (low cardinality; absent while it waits). */
    public static final String OUTCOME = "outcome";
    /** The key of the wait's keys (high cardinality). */
    public static final String KEYS = "purgatory.keys";
    /** The key of the wait's timeout in ms (high cardinality). */
    public static final String TIMEOUT = "purgatory.timeout.ms";

    /** The default convention. */
    public DefaultWaitObservationConvention() {
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(WaitObservationContext context) {
        return context.purgatory() + " wait";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(WaitObservationContext context) {
        KeyValue purgatory = KeyValue.of(PURGATORY, context.purgatory());
        WaitOutcome outcome = context.outcome();
        return outcome == null ? KeyValues.of(purgatory)
                : KeyValues.of(purgatory, KeyValue.of(OUTCOME, value(outcome)));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(WaitObservationContext context) {
        return KeyValues.of(KeyValue.of(KEYS, keys(context.keys())),
                KeyValue.of(TIMEOUT, Long.toString(context.timeoutMs())));
    }

    /** The {@value #OUTCOME} value of {@code outcome}: lower case, as the {@code purgatory.*} meters spell them. */
    public static String value(WaitOutcome outcome) {
        return switch (outcome) {
            case COMPLETED -> "completed";
            case COMPLETED_AT_ONCE -> "completed.first.try";
            case EXPIRED -> "expired";
            case CANCELLED -> "cancelled";
            case CLOSED -> "closed";
            case FAILED -> "failed";
        };
    }

    private static String keys(List<Object> keys) {
        if (keys.size() == 1) {
            return String.valueOf(keys.get(0));
        }
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            joined.append(i == 0 ? "" : ", ").append(keys.get(i));
        }
        return joined.toString();
    }
}
