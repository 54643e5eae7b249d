package io.purgatory.spring;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The order-payment long poll as a Spring Boot application, for the tests that run it on a real
 * server: a controller that returns the wait, and an event listener that completes it. The same
 * controller serves Spring MVC (Tomcat) and WebFlux (Reactor Netty).
 */
final class PaymentsApp {

    private PaymentsApp() {
    }

    /** A payment, as the JSON body of a paid order and of the long poll's answer. */
    record Payment(String amount) {
    }

    /** Published when an order is paid. */
    record PaymentReceived(String orderId, Payment payment) {
    }

    @RestController
    static class OrderController {
        /** The futures of {@code /wait-held}, by order id. */
        final Map<String, CompletableFuture<Payment>> held = new ConcurrentHashMap<>();
        private final KeyedWaits<String, Payment> payments;
        private final ApplicationEventPublisher events;

        OrderController(KeyedWaits<String, Payment> payments, ApplicationEventPublisher events) {
            this.payments = payments;
            this.events = events;
        }

        @GetMapping("/orders/{id}/wait")
        CompletableFuture<Payment> await(@PathVariable String id,
                                         @RequestParam(defaultValue = "600000") long timeoutMs) {
            return payments.await(id, Duration.ofMillis(timeoutMs));
        }

        /** The same wait, its refusal as a failed future (what {@code await} returns once the core fails it). */
        @GetMapping("/orders/{id}/wait-failing")
        CompletableFuture<Payment> awaitFailing(@PathVariable String id) {
            try {
                return payments.await(id, Duration.ofMinutes(10));
            } catch (RuntimeException refused) {
                return CompletableFuture.failedFuture(refused);
            }
        }

        @GetMapping("/orders/{id}/wait-mono")
        Mono<Payment> awaitMono(@PathVariable String id, @RequestParam(defaultValue = "600000") long timeoutMs) {
            return Mono.fromFuture(() -> payments.await(id, Duration.ofMillis(timeoutMs)));
        }

        /** The same wait, kept in {@link #held} so that a test can fail it as no event or timeout would. */
        @GetMapping("/orders/{id}/wait-held")
        CompletableFuture<Payment> awaitHeld(@PathVariable String id) {
            return held.computeIfAbsent(id, key -> payments.await(key, Duration.ofMinutes(10)));
        }

        @PostMapping("/orders/{id}/paid")
        void paid(@PathVariable String id, @RequestBody Payment payment) {
            events.publishEvent(new PaymentReceived(id, payment));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({OrderController.class, PaymentListener.class})
    static class Mvc {
        @Bean
        KeyedWaits<String, Payment> payments(PurgatoryFactory purgatories) {
            return purgatories.keyedWaits("payments").build();
        }
    }

    /** Completes the waits on each payment. */
    static class PaymentListener {
        private final KeyedWaits<String, Payment> payments;

        PaymentListener(KeyedWaits<String, Payment> payments) {
            this.payments = payments;
        }

        @EventListener
        void paid(PaymentReceived paid) {
            payments.complete(paid.orderId(), paid.payment());
        }
    }

    /** The application, on WebFlux and Reactor Netty (Tomcat is on the test class path too). */
    @Configuration(proxyBeanMethods = false)
    @Import(Mvc.class)
    static class Reactive {
        @Bean
        NettyReactiveWebServerFactory nettyFactory() {
            return new NettyReactiveWebServerFactory();
        }
    }

    static ConfigurableApplicationContext start(WebApplicationType type, String... properties) {
        return start(type, List.of(), properties);
    }

    /** Starts the application of {@code type} with {@code more} configuration on a loopback port. */
    static ConfigurableApplicationContext start(WebApplicationType type, List<Class<?>> more, String... properties) {
        List<Class<?>> sources = new ArrayList<>(more);
        sources.add(type == WebApplicationType.REACTIVE ? Reactive.class : Mvc.class);
        SpringApplication app = new SpringApplication(sources.toArray(new Class<?>[0]));
        app.setWebApplicationType(type);
        app.setDefaultProperties(Map.of("server.port", "0", "server.address", "127.0.0.1",
                "spring.main.banner-mode", "off"));
        return app.run(properties);
    }
}
