package io.purgatory.examples.spring;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.purgatory.KeyedWaits;
import io.purgatory.kafka.KafkaFeed;
import io.purgatory.kafka.KafkaTracing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * The payments through Kafka, for several instances behind one load balancer
 * ({@code examples.payments.feed=kafka}): {@code POST /orders/{id}/paid} publishes the payment to
 * the topic {@code examples.payments.kafka.topic} in a {@code send} span, its trace context in the
 * record's headers ({@link KafkaTracing#inject}); every instance's {@link KafkaFeed} reads the
 * topic and answers its own waits inside a span of that trace, so the wait's span, on whichever
 * instance it waits, links to the payment's trace. {@link PaymentListener} still answers the waits
 * of the instance that received the payment at once; the record then finds them answered.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "examples.payments.feed", havingValue = "kafka")
public class KafkaPayments {

    private final String servers;
    private final String topic;

    public KafkaPayments(@Value("${examples.payments.kafka.bootstrap-servers:127.0.0.1:9092}") String servers,
                         @Value("${examples.payments.kafka.topic:payments}") String topic) {
        this.servers = servers;
        this.topic = topic;
    }

    /** The trace context in the records' headers (W3C {@code traceparent} with OpenTelemetry). */
    @Bean
    KafkaTracing kafkaTracing(Tracer tracer, Propagator propagator) {
        return KafkaTracing.of(tracer, propagator);
    }

    /** Answers this instance's waits with every payment, whichever instance received it. */
    @Bean(destroyMethod = "close") // before the waits: the feed depends on them
    KafkaFeed<String, Payment> paymentFeed(KeyedWaits<String, Payment> payments, KafkaTracing tracing,
                                           ObjectMapper json) {
        return KafkaFeed.builder(payments, topic).bootstrapServers(servers)
                .key(record -> record.key() == null ? null : new String(record.key(), UTF_8))
                .value(record -> read(json, record.value()))
                .createTopicIfMissing(1, (short) 1)
                .tracing(tracing)
                .build().start();
    }

    @Bean(destroyMethod = "close")
    KafkaProducer<String, String> paymentProducer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    @Bean
    Publisher paymentPublisher(KafkaProducer<String, String> producer, KafkaTracing tracing, Tracer tracer,
                               ObjectMapper json) {
        return new Publisher(producer, tracing, tracer, json, topic);
    }

    private static Payment read(ObjectMapper json, byte[] value) {
        try {
            return json.readValue(value, Payment.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the feed counts the record as a mapping error
        }
    }

    /** Publishes each payment to the topic, in a PRODUCER span that is the request's child. */
    static final class Publisher {
        private final KafkaProducer<String, String> producer;
        private final KafkaTracing tracing;
        private final Tracer tracer;
        private final ObjectMapper json;
        private final String topic;

        Publisher(KafkaProducer<String, String> producer, KafkaTracing tracing, Tracer tracer, ObjectMapper json,
                  String topic) {
            this.producer = producer;
            this.tracing = tracing;
            this.tracer = tracer;
            this.json = json;
            this.topic = topic;
        }

        /** Sends the payment and waits for the broker's acknowledgement (10 s at most). */
        @EventListener
        public void onPaid(OrderPaid paid) throws JsonProcessingException, ExecutionException, InterruptedException,
                TimeoutException {
            String value = json.writeValueAsString(paid.payment());
            Span send = tracer.spanBuilder().name("send " + topic).kind(Span.Kind.PRODUCER) // the request's child
                    .tag("messaging.system", "kafka").tag("messaging.destination.name", topic).start();
            Tracer.SpanInScope scope = tracer.withSpan(send);
            try {
                producer.send(tracing.inject(new ProducerRecord<>(topic, paid.orderId(), value)))
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                send.error(e);
                throw e;
            } finally {
                scope.close();
                send.end();
            }
        }
    }
}
