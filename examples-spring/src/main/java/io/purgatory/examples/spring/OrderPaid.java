package io.purgatory.examples.spring;

/** Published when an order is paid (here by {@link OrderController}; in your application by a webhook, a queue...). */
public record OrderPaid(String orderId, Payment payment) {
}
