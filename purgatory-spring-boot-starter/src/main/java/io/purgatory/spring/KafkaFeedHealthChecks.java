package io.purgatory.spring;

import io.purgatory.kafka.FeedState;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.spring.health.Check;
import io.purgatory.spring.health.NamedChecks;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The checks of the {@code kafkaFeeds} health contributor: one per {@code KafkaFeed} bean (the
 * auto-configured feeds and the application's own), by feed name. A feed that reads its topic
 * ({@link KafkaFeed#isReady()}) is {@code UP}; one that cannot hear it is {@code DOWN}: a missing
 * (or misspelt) topic, an unreachable broker, a stalled thread; one that is starting, positioning,
 * reading back or stopped is {@code OUT_OF_SERVICE}. Details: {@code topic}, {@code state},
 * {@code lagging}, and for {@code DOWN} the {@code reason}. Reads the feed's state when asked;
 * creates no bean. Thread-safe.
 */
public final class KafkaFeedHealthChecks implements NamedChecks {

    private final ConfigurableListableBeanFactory beanFactory;

    /** The checks of the feed beans of {@code beanFactory}. */
    public KafkaFeedHealthChecks(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Map<String, Check> checkAll() {
        Map<String, Check> all = new LinkedHashMap<>();
        feeds().forEach((name, feed) -> all.put(name, check(feed)));
        return all;
    }

    @Override
    public Check check(String name) {
        KafkaFeed<?, ?> feed = feeds().get(name);
        return feed == null ? null : check(feed);
    }

    /** The feed beans that exist now, by feed name. */
    private Map<String, KafkaFeed<?, ?>> feeds() {
        Map<String, KafkaFeed<?, ?>> byName = new LinkedHashMap<>();
        for (String bean : beanFactory.getBeanNamesForType(KafkaFeed.class, false, false)) {
            if (beanFactory.getSingleton(bean) instanceof KafkaFeed<?, ?> feed) {
                byName.put(feed.name(), feed);
            }
        }
        return byName;
    }

    static Check check(KafkaFeed<?, ?> feed) {
        FeedState state = feed.state();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("topic", feed.topic());
        details.put("state", state.name());
        details.put("lagging", feed.isLagging());
        String reason = reason(state, feed.topic());
        if (reason != null) {
            details.put("reason", reason);
            return new Check(Check.Status.DOWN, details);
        }
        return new Check(state == FeedState.READY ? Check.Status.UP : Check.Status.OUT_OF_SERVICE, details);
    }

    /** Why a feed in {@code state} cannot hear {@code topic}, or null if that is not what keeps it from ready. */
    private static String reason(FeedState state, String topic) {
        return switch (state) {
            case TOPIC_MISSING -> "topic '" + topic + "' does not exist";
            case UNREACHABLE -> "the broker has not answered for " + KafkaFeed.MAX_SILENCE.toSeconds() + " s";
            case STALLED -> "the feed's thread is blocked (a mapping function or a dependent stage of a wait)";
            default -> null;
        };
    }
}
