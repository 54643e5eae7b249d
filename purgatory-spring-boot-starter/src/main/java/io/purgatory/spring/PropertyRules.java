package io.purgatory.spring;

import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
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
    /** A topic name Kafka accepts (and the feed's builder): 1 to 249 of these, not "." or "..". */
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Duration DAYS_24 = Duration.ofDays(24);

    private PropertyRules() {
    }

    /** Whether {@link #check} has rules for objects of {@code type}: the properties and their groups. */
    static boolean supports(Class<?> type) {
        return type == PurgatoryProperties.class || type == PurgatoryProperties.SharedRuntime.class
                || type == PurgatoryProperties.Metrics.class || type == PurgatoryProperties.Health.class
                || type == PurgatoryProperties.Observations.class || type == PurgatoryProperties.Kafka.class
                || type == PurgatoryProperties.Feed.class || type == PurgatoryProperties.Actuator.class;
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
            Duration backPressure = runtime.getBackPressure();
            if (backPressure != null && (backPressure.isNegative() || backPressure.isZero())) {
                errors.rejectValue("back-pressure", INVALID, "must be more than 0 (unset: no back-pressure)");
            }
            if (runtime.getExpirationExecutor() != null && runtime.getExpirationExecutor().isBlank()) {
                errors.rejectValue("expiration-executor", INVALID, "must name an Executor bean (unset: the runtime's"
                        + " own threads)");
            }
        } else if (target instanceof PurgatoryProperties.Metrics metrics) {
            if (!positiveAndDistinct(metrics.getBuckets())) {
                errors.rejectValue("buckets", INVALID, "each must be positive, and no two equal (none: no histogram)");
            }
        } else if (target instanceof PurgatoryProperties.Feed feed) {
            checkFeed(feed, errors);
        } else if (target instanceof PurgatoryProperties.Actuator actuator) {
            if (actuator.keyRenderer() == null) {
                errors.rejectValue("keys", INVALID, "must be shown (toString cut to 64 characters), hidden (each"
                        + " as *) or a number of characters from 1 to 999999999");
            }
        } else if (target instanceof PurgatoryProperties.Health health) {
            if (health.getRejectionWindow() == null || health.getRejectionWindow().isNegative()) {
                errors.rejectValue("rejection-window", INVALID, "must be 0 or more");
            }
        }
    }

    private static void checkFeed(PurgatoryProperties.Feed feed, Errors errors) {
        String topic = feed.getTopic();
        if (topic == null || !TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            errors.rejectValue("topic", INVALID, "must be 1 to 249 of a-z, A-Z, 0-9, '.', '_', '-' (not . or ..)");
        }
        if (feed.getReadBack() != null && feed.getReadBack().isNegative()) {
            errors.rejectValue("read-back", INVALID, "must be 0 or more (unset: the waits' retention window)");
        }
        if (!within(feed.getLagThreshold(), Duration.ZERO, DAYS_24)) {
            errors.rejectValue("lag-threshold", INVALID, "must be from 0 to 24 days");
        }
        if (feed.getCreateTopicPartitions() < 0) {
            errors.rejectValue("create-topic-partitions", INVALID, "must be 0 (never create the topic) or more");
        }
        if (feed.getCreateTopicReplicationFactor() < 1) {
            errors.rejectValue("create-topic-replication-factor", INVALID, "must be 1 or more");
        }
    }

    private static boolean within(Duration value, Duration min, Duration max) {
        return value != null && value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
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
