package io.purgatory.kafka;

import io.purgatory.testbroker.KafkaBroker;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real single-node KRaft broker for every test class of the module that extends with this:
 * started before the first of them (a child JVM on a free loopback port), stopped after the last
 * (JUnit closes it with the root context). Each test takes its own topic.
 */
final class SharedBroker implements BeforeAllCallback {

    private static final AtomicInteger TOPICS = new AtomicInteger();
    private static volatile KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(KafkaBroker.class, type -> {
                    broker = KafkaBroker.builder().start();
                    return broker; // an AutoCloseable: JUnit closes it with the root context
                });
    }

    static KafkaBroker broker() {
        return broker;
    }

    /** A new topic with {@code partitions} partitions, named after {@code prefix}. */
    static String newTopic(String prefix, int partitions) {
        String topic = prefix + "-" + TOPICS.incrementAndGet();
        broker.createTopic(topic, partitions);
        return topic;
    }
}
