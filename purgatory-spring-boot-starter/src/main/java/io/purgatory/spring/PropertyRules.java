package io.purgatory.spring;

import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.validation.Errors;

/**
 * The allowed values of the {@code purgatory.*} properties, checked while Spring Boot binds them
 * ({@link PurgatoryProperties} validates itself through these rules, so no Bean Validation provider
 * is needed). A bad value fails the startup with Spring Boot's short report: the property in its
 * canonical form, the value, and the rule with its allowed range. The ranges are the core's, the
 * ones its builders enforce; the tests check that the two agree at every bound.
 */
final class PropertyRules {

    /** The most shards a purgatory may have: {@code PurgatoryBuilder.shards}' bound. */
    static final int MAX_SHARDS = 1 << 16;
    /** The fewest buckets a wheel may have: {@code TimerSettings}'s bound. */
    static final int MIN_WHEEL_SIZE = 2;

    private static final String INVALID = "purgatory.invalid";

    private PropertyRules() {
    }

    /** Whether {@link #check} has rules for objects of {@code type}: the properties and their groups. */
    static boolean supports(Class<?> type) {
        return type == PurgatoryProperties.class || type == PurgatoryProperties.SharedRuntime.class
                || type == PurgatoryProperties.Metrics.class || type == PurgatoryProperties.Health.class
                || type == PurgatoryProperties.Observations.class;
    }

    /** Rejects each field of {@code target} out of its range into {@code errors}, under its property name. */
    static void check(Object target, Errors errors) {
        if (target instanceof PurgatoryProperties p) {
            if (p.getShards() < 1 || p.getShards() > MAX_SHARDS || Integer.bitCount(p.getShards()) != 1) {
                errors.rejectValue("shards", INVALID, "must be a power of two from 1 to " + MAX_SHARDS);
            }
            if (p.getMaxPending() < 0) {
                errors.rejectValue("max-pending", INVALID, "must be 0 (no limit) or more");
            }
            if (p.getClosePolicy() == null) {
                errors.rejectValue("close-policy", INVALID, "must be expire, cancel or complete");
            }
        } else if (target instanceof PurgatoryProperties.SharedRuntime runtime) {
            if (runtime.getName() == null || runtime.getName().isBlank()) {
                errors.rejectValue("name", INVALID, "must not be blank: it names the runtime's threads");
            }
            Duration tick = runtime.getTick();
            if (tick == null || Timer.toMs(tick) < 1 || Timer.toMs(tick) > Timer.MAX_DELAY_MS) {
                errors.rejectValue("tick", INVALID, "must be from 1ms to " + Timer.MAX_DELAY_MS
                        + "ms (read in whole milliseconds, a fraction rounded up)");
            }
            if (runtime.getWheelSize() < MIN_WHEEL_SIZE || runtime.getWheelSize() > TimerSettings.MAX_WHEEL_SIZE) {
                errors.rejectValue("wheel-size", INVALID, "must be from " + MIN_WHEEL_SIZE + " to "
                        + TimerSettings.MAX_WHEEL_SIZE);
            }
        } else if (target instanceof PurgatoryProperties.Metrics metrics) {
            if (!positiveAndDistinct(metrics.getBuckets())) {
                errors.rejectValue("buckets", INVALID, "each must be positive, and no two equal (none: no histogram)");
            }
        } else if (target instanceof PurgatoryProperties.Health health) {
            if (health.getRejectionWindow() == null || health.getRejectionWindow().isNegative()) {
                errors.rejectValue("rejection-window", INVALID, "must be 0 or more");
            }
        }
    }

    private static boolean positiveAndDistinct(List<Duration> buckets) {
        if (buckets == null) {
            return true; // MicrometerMetrics' defaults
        }
        Set<Duration> seen = new HashSet<>();
        for (Duration bucket : buckets) {
            if (bucket == null || bucket.isNegative() || bucket.isZero() || !seen.add(bucket)) {
                return false;
            }
        }
        return true;
    }
}
