package io.purgatory.examples.spring;

import io.purgatory.KeyedWaits;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/** Answers the long polls of an order when it is paid. */
@Component
public class PaymentListener {

    private final KeyedWaits<String, Payment> payments;

    public PaymentListener(KeyedWaits<String, Payment> payments) {
        this.payments = payments;
    }

    @EventListener
    public void onPaid(OrderPaid paid) {
        payments.complete(paid.orderId(), paid.payment());
    }
}
