package io.purgatory.examples.spring;

import io.purgatory.KeyedWaits;
import io.purgatory.spring.PurgatoryFactory;
import java.time.Duration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The order-payment long poll on Spring Boot: {@link OrderController} and {@link PaymentListener}. */
@SpringBootApplication
public class OrderPaymentsApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderPaymentsApplication.class, args);
    }

    @Bean
    KeyedWaits<String, Payment> payments(PurgatoryFactory purgatories) {
        return purgatories.keyedWaits("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000) // a payment just before its wait still answers it
                .build();
    }
}
