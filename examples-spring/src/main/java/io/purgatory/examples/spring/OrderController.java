package io.purgatory.examples.spring;

import io.purgatory.KeyedWaits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** GET /orders/{id}/wait: 200 with the payment once POST /orders/{id}/paid posts it, or 204 after 20 s. */
@RestController
public class OrderController {

    private final KeyedWaits<String, Payment> payments;
    private final ApplicationEventPublisher events;

    public OrderController(KeyedWaits<String, Payment> payments, ApplicationEventPublisher events) {
        this.payments = payments;
        this.events = events;
    }

    @GetMapping("/orders/{id}/wait")
    public CompletableFuture<Payment> awaitPayment(@PathVariable String id) {
        return payments.await(id, Duration.ofSeconds(20)); // holds no thread; cancelled if the request ends first
    }

    @PostMapping("/orders/{id}/paid")
    @ResponseStatus(HttpStatus.ACCEPTED)
    public void paid(@PathVariable String id, @RequestBody Payment payment) {
        events.publishEvent(new OrderPaid(id, payment));
    }
}
