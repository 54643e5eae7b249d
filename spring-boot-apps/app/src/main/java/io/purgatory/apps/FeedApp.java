package io.purgatory.apps;

import io.purgatory.KeyedWaits;
import io.purgatory.spring.PurgatoryFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A long poll on keyed waits fed from Kafka by the starter's auto-configured feeds, written once for
 * every Spring Boot line the starter supports: {@code GET /orders/{id}/payment} waits (20 s at most)
 * for the record keyed {@code id} on the topic of {@code purgatory.kafka.feeds.payments.topic}, and
 * answers 200 with its value. Its {@code refunds} waits have a feed too. Nothing here names a class
 * that differs between Spring Boot 3.5 and 4.
 */
@SpringBootApplication
public class FeedApp {

    public static void main(String[] args) {
        SpringApplication.run(FeedApp.class, args);
    }

    @Bean
    KeyedWaits<String, String> payments(PurgatoryFactory purgatories) {
        return purgatories.keyedWaits("payments").retainEvents(Duration.ofSeconds(30), 10_000).build();
    }

    @Bean
    KeyedWaits<String, String> refunds(PurgatoryFactory purgatories) {
        return purgatories.keyedWaits("refunds").build();
    }

    /** The long poll: a wait on the order's payment, answered by the feed. */
    @RestController
    static class Orders {
        private final KeyedWaits<String, String> payments;

        Orders(KeyedWaits<String, String> payments) {
            this.payments = payments;
        }

        @GetMapping("/orders/{id}/payment")
        CompletableFuture<String> payment(@PathVariable String id) {
            return payments.await(id, Duration.ofSeconds(20));
        }
    }
}
