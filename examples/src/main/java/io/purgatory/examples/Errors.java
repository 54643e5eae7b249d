package io.purgatory.examples;

/** The per-partition error codes of produce and fetch responses (Kafka's names). */
public enum Errors {
    NONE,
    REQUEST_TIMED_OUT,
    NOT_LEADER_OR_FOLLOWER,
    NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    UNKNOWN_TOPIC_OR_PARTITION,
    OFFSET_OUT_OF_RANGE
}
