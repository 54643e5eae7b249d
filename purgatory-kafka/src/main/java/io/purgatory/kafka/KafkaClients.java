package io.purgatory.kafka;

import java.time.Duration;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The calls whose form depends on the kafka-clients version the feed runs on, each made in the
 * form that version has, so that one jar runs on every version from 3.9 on: those Spring Boot
 * manages (3.9.x for Boot 3.5, 4.1.x for 4.0, 4.2.x for 4.1) and the one it is built with.
 * Stateless and thread-safe.
 */
final class KafkaClients {

    /*
     * Implementation notes.
     *
     * (F9) A consumer is closed at once with close(CloseOptions.timeout(ZERO)) where CloseOptions
     *      exists (kafka-clients 4.1 on, where close(Duration) is deprecated for removal), and with
     *      close(Duration.ZERO) before. Whether it exists is decided once, by loading the class
     *      with kafka-clients' own class loader. The call that names CloseOptions is in its own
     *      class (Since41), which the JVM loads and links only when that call runs: on 3.9 no class
     *      the feed loads names a type that is missing.
     */

    private static final boolean CLOSE_OPTIONS = present("org.apache.kafka.clients.consumer.CloseOptions");

    private KafkaClients() {
    }

    /** Closes {@code consumer} without waiting (F9): the feed's has no group and nothing to commit. */
    static void closeNow(Consumer<?, ?> consumer) {
        if (CLOSE_OPTIONS) {
            Since41.closeNow(consumer);
        } else {
            closeNowBefore41(consumer);
        }
    }

    @SuppressWarnings("deprecation") // close(Duration): the only form before 4.1 (F9)
    private static void closeNowBefore41(Consumer<?, ?> consumer) {
        consumer.close(Duration.ZERO);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Consumer.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** The calls of kafka-clients 4.1 on: loaded only where they exist (F9). */
    private static final class Since41 {

        private Since41() {
        }

        static void closeNow(Consumer<?, ?> consumer) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
    }
}
