package io.purgatory.kafka;

/**
 * Where a {@link KafkaFeed} stands, and why it is not {@link #READY}: its readiness with the reason.
 * Only {@code READY} means that an event published to the topic now reaches the waits. The states
 * that depend on time ({@link #UNREACHABLE}, {@link #STALLED}) are decided when asked, so they
 * turn within {@link KafkaFeed#MAX_SILENCE} even while the feed's thread is blocked.
 */
public enum FeedState {

    /** Built, not started. */
    NEW,

    /** Started; the broker has not yet told the feed the topic's partitions. */
    STARTING,

    /**
     * The broker says the topic does not exist (or, for a topic deleted while the feed ran, no
     * longer exists). The feed asks again every second, and creates the topic if it was built with
     * {@link KafkaFeed.Builder#createTopicIfMissing createTopicIfMissing}.
     */
    TOPIC_MISSING,

    /**
     * The broker has answered none of the feed's checks for {@link KafkaFeed#MAX_SILENCE}: it is down
     * or unreachable, refuses the feed's credentials, or a partition has no leader. Reading resumes
     * where it was when it answers again.
     */
    UNREACHABLE,

    /**
     * The feed's thread has shown no progress for {@link KafkaFeed#MAX_SILENCE}: a mapping function or a
     * dependent stage of a wait blocks it.
     */
    STALLED,

    /**
     * The topic's partitions are known, and the offsets to read some of them from are being looked
     * up: on start, and from the check that finds a partition added to the topic until it is read.
     */
    POSITIONING,

    /**
     * Every partition is positioned, and the feed reads back the window: the records up to the end
     * offsets it saw when it positioned them. An event published now is read after those.
     */
    READING_BACK,

    /** Every partition is read, the read-back is done, and the broker answers. */
    READY,

    /** Closed, or stopped because its waits were closed. */
    STOPPED
}
