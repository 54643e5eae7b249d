package io.purgatory.spring;

/**
 * The feeds of a context's purgatories (its {@code KafkaFeed} beans): {@link PurgatoryShutdown}
 * closes them before the purgatories they complete, so that no feed finds its waits closed under
 * it (and logs it).
 */
interface PurgatoryFeeds {

    /** Closes every feed of the context (a closed one stays closed); never throws. */
    void closeFeeds();
}
