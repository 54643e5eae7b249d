package io.purgatory.examples;

import java.util.Objects;

/** A partition of a topic: the watch key of produce and fetch operations. */
public record TopicPartition(String topic, int partition) {

    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (topic.isBlank()) {
            throw new IllegalArgumentException("topic must not be blank");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0: " + partition);
        }
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
