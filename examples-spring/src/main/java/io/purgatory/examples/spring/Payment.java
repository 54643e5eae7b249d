package io.purgatory.examples.spring;

/** An order's payment: the body of {@code POST /orders/{id}/paid} and of the long poll's answer. */
public record Payment(String amount, String reference) {
}
