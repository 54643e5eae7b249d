package io.purgatory.examples.spring.javadoc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.spring.KafkaFeedMapping;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;

/**
 * KafkaFeedMapping's example, verbatim (examples' JavadocExamplesTest keeps the javadoc's copy in
 * sync with this one), and what the mapping it declares reads from a record.
 */
class KafkaFeedMappingExampleTest {

    @Bean
    KafkaFeedMapping<Long, String> paymentRecords() {
        return KafkaFeedMapping.of("payments", record -> Long.valueOf(new String(record.key(), UTF_8)),
                record -> new String(record.value(), UTF_8));
    }

    @Test
    void paymentRecords_aRecordKeyedByAnOrderNumber_mapsToItsNumberAndItsPayment() {
        KafkaFeedMapping<Long, String> mapping = paymentRecords();
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("payments", 0, 7L,
                "42".getBytes(UTF_8), "{\"amountCents\":1250}".getBytes(UTF_8));

        assertThat(mapping.waits()).isEqualTo("payments");
        assertThat(mapping.key(record)).isEqualTo(42L);
        assertThat(mapping.value(record)).isEqualTo("{\"amountCents\":1250}");
        ConsumerRecord<byte[], byte[]> unreadable = new ConsumerRecord<>("payments", 0, 8L,
                "order-42".getBytes(UTF_8), new byte[0]);
        assertThatThrownBy(() -> mapping.key(unreadable)).as("counted by the feed as a mapping error")
                .isInstanceOf(NumberFormatException.class);
    }
}
