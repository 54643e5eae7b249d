package io.purgatory.spring;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.kafka.KafkaTracing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.ResolvableType;

/**
 * Builds and starts the feed of one {@code purgatory.kafka.feeds} entry: the keyed waits bean it
 * names, the topic and settings of the entry, the brokers and client properties (the starter's,
 * else Spring Kafka's {@code spring.kafka.*}), the entry's {@link KafkaFeedMapping} (or UTF-8
 * strings), and the context's {@link KafkaTracing} if it has one. What cannot work is refused
 * naming the property.
 */
final class KafkaFeedFactory {

    private static final String PREFIX = "purgatory.kafka";
    /** Consumer properties the feed sets itself: Spring Kafka's settings of them are for its own consumers. */
    private static final Set<String> THE_FEEDS = Set.of("bootstrap.servers", "group.id", "enable.auto.commit",
            "auto.offset.reset", "key.deserializer", "value.deserializer", "allow.auto.create.topics", "client.id");

    private final ConfigurableListableBeanFactory beanFactory;
    private final PurgatoryProperties.Kafka kafka;
    private final Binder binder;
    private final ObjectProvider<KafkaFeedMapping<?, ?>> mappings;
    private final ObjectProvider<KafkaTracing> tracing;

    KafkaFeedFactory(ConfigurableListableBeanFactory beanFactory, PurgatoryProperties properties, Binder binder,
                     ObjectProvider<KafkaFeedMapping<?, ?>> mappings, ObjectProvider<KafkaTracing> tracing) {
        this.beanFactory = beanFactory;
        this.kafka = properties.getKafka();
        this.binder = binder;
        this.mappings = mappings;
        this.tracing = tracing;
    }

    /** The feed of the waits bean {@code waits}, started. */
    @SuppressWarnings("unchecked")
    KafkaFeed<?, ?> start(String waits) {
        PurgatoryProperties.Feed feed = kafka.getFeeds().get(waits);
        String topicProperty = PREFIX + ".feeds." + waits + ".topic";
        if (!beanFactory.containsBean(waits) || !beanFactory.isTypeMatch(waits, KeyedWaits.class)) {
            throw new InvalidConfigurationPropertyValueException(topicProperty, feed.getTopic(),
                    "there is no KeyedWaits bean named '" + waits + "' for the feed to complete");
        }
        KafkaFeedMapping<Object, Object> mapping = (KafkaFeedMapping<Object, Object>) mapping(waits, topicProperty,
                feed.getTopic());
        return start(feed, beanFactory.getBean(waits, KeyedWaits.class), mapping);
    }

    private <K, V> KafkaFeed<K, V> start(PurgatoryProperties.Feed feed, KeyedWaits<K, V> waits,
                                         KafkaFeedMapping<K, V> mapping) {
        KafkaFeed.Builder<K, V> builder = KafkaFeed.builder(waits, feed.getTopic())
                .bootstrapServers(servers())
                .key(mapping::key)
                .value(mapping::value)
                .lagThreshold(feed.getLagThreshold());
        if (feed.getReadBack() != null) {
            builder.readBack(feed.getReadBack());
        }
        if (feed.getCreateTopicPartitions() > 0) {
            builder.createTopicIfMissing(feed.getCreateTopicPartitions(), feed.getCreateTopicReplicationFactor());
        }
        springKafkaProperties().forEach((key, value) -> {
            if (!THE_FEEDS.contains(key)) {
                builder.consumerProperty(key, value);
            }
        });
        kafka.getConsumer().forEach((key, value) -> {
            try {
                builder.consumerProperty(key, value);
            } catch (IllegalArgumentException refused) {
                throw new InvalidConfigurationPropertyValueException(PREFIX + ".consumer." + key, value,
                        refused.getMessage());
            }
        });
        KafkaTracing traced = tracing.getIfUnique();
        if (traced != null) {
            builder.tracing(traced);
        }
        return builder.build().start();
    }

    /** The waits' mapping bean, or UTF-8 strings for {@code KeyedWaits<String, String>}. */
    private KafkaFeedMapping<?, ?> mapping(String waits, String property, String topic) {
        List<KafkaFeedMapping<?, ?>> own = mappings.orderedStream().filter(m -> waits.equals(m.waits())).toList();
        if (own.size() > 1) {
            throw new InvalidConfigurationPropertyValueException(property, topic, own.size()
                    + " KafkaFeedMapping beans name the waits '" + waits + "': keep one");
        }
        if (own.size() == 1) {
            return own.get(0);
        }
        ResolvableType strings = ResolvableType.forClassWithGenerics(KeyedWaits.class, String.class, String.class);
        if (!List.of(beanFactory.getBeanNamesForType(strings, true, false)).contains(waits)) {
            throw new InvalidConfigurationPropertyValueException(property, topic, "the keyed waits '" + waits
                    + "' are not KeyedWaits<String, String>, which the feed reads as UTF-8 by default: declare a"
                    + " KafkaFeedMapping bean for them");
        }
        return KafkaFeedMapping.of(waits, r -> r.key() == null ? null : new String(r.key(), UTF_8),
                r -> r.value() == null ? null : new String(r.value(), UTF_8));
    }

    /** The brokers: {@code purgatory.kafka.bootstrap-servers}, else Spring Kafka's (its consumer's first). */
    private String servers() {
        List<String> servers = kafka.getBootstrapServers();
        for (String spring : List.of("spring.kafka.consumer.bootstrap-servers", "spring.kafka.bootstrap-servers")) {
            if (servers == null || servers.isEmpty()) {
                servers = binder.bind(spring, Bindable.listOf(String.class)).orElse(null);
            }
        }
        if (servers == null || servers.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + ".bootstrap-servers", null,
                    "the feeds need brokers: set it, or spring.kafka.bootstrap-servers");
        }
        return String.join(",", servers);
    }

    /**
     * Spring Kafka's client properties that reach a consumer: {@code spring.kafka.properties.*},
     * {@code spring.kafka.security.protocol}, then the consumer's own ({@code spring.kafka.consumer.*}).
     */
    private Map<String, Object> springKafkaProperties() {
        Map<String, Object> all = new LinkedHashMap<>();
        all.putAll(binder.bind("spring.kafka.properties", Bindable.mapOf(String.class, String.class)).orElse(Map.of()));
        binder.bind("spring.kafka.security.protocol", String.class).ifBound(p -> all.put("security.protocol", p));
        all.putAll(binder.bind("spring.kafka.consumer.properties", Bindable.mapOf(String.class, String.class))
                .orElse(Map.of()));
        binder.bind("spring.kafka.consumer.security.protocol", String.class)
                .ifBound(p -> all.put("security.protocol", p));
        return all;
    }
}
