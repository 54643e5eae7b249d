package io.purgatory.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.purgatory.KeyedWaits;
import io.purgatory.examples.OrderPayments.Payment;
import io.purgatory.timer.ManualTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every path of an order's wait for its payment, on a manual timer: the test decides when time passes. */
class OrderPaymentsTest {

    private static final Instant PAID_AT = Instant.parse("2025-01-01T12:00:00Z");

    private final ManualTimer timer = new ManualTimer();
    private final OrderPayments payments =
            new OrderPayments(KeyedWaits.builder("orders").timer(timer), Duration.ofSeconds(30));

    @AfterEach
    void tearDown() {
        payments.close();
        timer.close();
    }

    @Test
    void awaitPayment_paymentArrives_completesWithThePayment() {
        CompletableFuture<Payment> paid = payments.awaitPayment("order-1", Duration.ofSeconds(2));
        CompletableFuture<Payment> other = payments.awaitPayment("order-2", Duration.ofSeconds(2));
        assertThat(paid).isNotDone();

        Payment payment = new Payment("order-1", 1_250, PAID_AT);
        assertThat(payments.onPayment(payment)).isEqualTo(1);

        assertThat(paid).isCompletedWithValue(payment);
        assertThat(other).isNotDone();
        assertThat(payments.stats().pending()).isEqualTo(1);
    }

    @Test
    void awaitPayment_noPayment_failsWithATimeoutAtTheTimeoutAndNotBefore() {
        CompletableFuture<Payment> paid = payments.awaitPayment("order-1", Duration.ofSeconds(2));

        timer.advanceClock(1_999);
        assertThat(paid).isNotDone();
        timer.advanceClock(1);

        assertThatThrownBy(paid::join).hasCauseInstanceOf(TimeoutException.class);
        assertThat(payments.stats().pending()).isZero();
        assertThat(payments.stats().watched()).isZero();
        assertThat(payments.stats().expired()).isEqualTo(1);
    }

    @Test
    void awaitPayment_paidJustBefore_completesAtOnceWithThePayment() {
        Payment payment = new Payment("order-1", 990, PAID_AT);
        assertThat(payments.onPayment(payment)).as("nobody waits yet").isZero();
        timer.advanceClock(29_999);

        assertThat(payments.awaitPayment("order-1", Duration.ofSeconds(2))).isCompletedWithValue(payment);
        assertThat(payments.stats().pending()).isZero();
        assertThat(payments.stats().completedAtOnce()).isEqualTo(1);
    }

    @Test
    void awaitPayment_paidBeforeTheWindow_waitsForTheNextPayment() {
        payments.onPayment(new Payment("order-1", 990, PAID_AT));
        timer.advanceClock(30_000);
        assertThat(payments.earlyPayments()).as("the window has passed").isZero();

        CompletableFuture<Payment> paid = payments.awaitPayment("order-1", Duration.ofSeconds(2));
        assertThat(paid).isNotDone();
        timer.advanceClock(2_000);
        assertThatThrownBy(paid::join).hasCauseInstanceOf(TimeoutException.class);
    }

    @Test
    void close_pendingWaits_failLikeATimeout() {
        CompletableFuture<Payment> paid = payments.awaitPayment("order-1", Duration.ofSeconds(2));

        payments.close();

        assertThatThrownBy(paid::join).hasCauseInstanceOf(TimeoutException.class);
        assertThat(payments.onPayment(new Payment("order-1", 1, PAID_AT))).isZero();
    }

    @Test
    void payment_badValues_areRejectedNamingThem() {
        assertThatThrownBy(() -> new Payment("order-1", -5, PAID_AT)).hasMessage("amountCents must be >= 0: -5");
        assertThatThrownBy(() -> new Payment(null, 1, PAID_AT)).hasMessage("orderId");
        assertThatThrownBy(() -> payments.awaitPayment(null, Duration.ZERO)).hasMessage("orderId");
    }
}
