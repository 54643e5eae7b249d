package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.Outcome;
import io.purgatory.timer.ManualTimer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OrderPaymentsTest {

    private final ManualTimer timer = new ManualTimer();
    private final OrderPayments payments = new OrderPayments(
            DelayedOperationPurgatory.builder("orders").timer(timer).reaperEnabled(false));

    @AfterEach
    void tearDown() {
        payments.close();
        timer.close();
    }

    @Test
    void awaitPayment_paymentEventArrives_completes() {
        CompletableFuture<Outcome> paid = payments.awaitPayment("order-1", 2_000);
        CompletableFuture<Outcome> other = payments.awaitPayment("order-2", 2_000);
        assertThat(paid).isNotDone();

        payments.onPaymentEvent("order-1");

        assertThat(paid).isCompletedWithValue(Outcome.COMPLETED);
        assertThat(other).isNotDone();
        assertThat(payments.purgatory().numDelayed()).isEqualTo(1);
    }

    @Test
    void awaitPayment_noPayment_expiresAtTheTimeout() {
        CompletableFuture<Outcome> paid = payments.awaitPayment("order-1", 2_000);

        timer.advanceClock(1_999);
        assertThat(paid).isNotDone();
        timer.advanceClock(1);

        assertThat(paid).isCompletedWithValue(Outcome.EXPIRED);
        assertThat(payments.purgatory().watched()).isZero();
    }

    @Test
    void awaitPayment_alreadyPaid_completesAtOnce() {
        payments.onPaymentEvent("order-1");

        assertThat(payments.awaitPayment("order-1", 2_000)).isCompletedWithValue(Outcome.COMPLETED);
        assertThat(payments.purgatory().numDelayed()).isZero();
    }
}
