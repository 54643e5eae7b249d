package io.purgatory.examples.javadoc;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import java.time.Duration;

/**
 * KafkaFeed's example, verbatim (JavadocExamplesTest). Compiled, never run: it names a broker
 * that is not here (TwoInstanceDemoTest runs feeds on a real one).
 */
final class KafkaFeedExample {

    private KafkaFeedExample() {
    }

    static KafkaFeed<String, String> start() {
        KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000)      // the window the feed reads back on start
                .build();
        KafkaFeed<String, String> feed = KafkaFeed.builder(payments, "payments")
                .bootstrapServers("broker:9092")
                .key(record -> new String(record.key(), UTF_8))
                .value(record -> new String(record.value(), UTF_8))
                .closeWaits(true)                                     // close() stops the feed, then closes the waits
                .build()
                .start();
        return feed;
    }
}
