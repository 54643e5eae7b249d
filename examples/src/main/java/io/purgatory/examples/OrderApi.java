package io.purgatory.examples;

import com.sun.net.httpserver.HttpExchange;
import io.purgatory.WaitTimeoutException;
import io.purgatory.examples.OrderPayments.Payment;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's order-payment long poll, on {@link OrderPayments}. {@code GET /orders/{id}/wait?timeoutMs=}
 * answers 200 with the payment as JSON when it arrives, or arrived up to the early-payment window
 * before, 204 when its timeout passes first, and 503 when the demo stops meanwhile.
 * {@code POST /orders/{id}/paid} ({@code amountCents}, in the query or a form body) hands the
 * payment over. A wait holds no thread: the exchange is answered from its future's completion.
 * The JDK's HttpServer does not report a client that disconnects, so its wait stays until its
 * timeout (at most {@link #MAX_TIMEOUT_MS}).
 */
final class OrderApi {

    static final long MAX_TIMEOUT_MS = 60_000;
    private static final Pattern PATH = Pattern.compile("/orders/([^/]+)/(wait|paid)");
    private static final Pattern ORDER_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final OrderPayments payments;

    OrderApi(OrderPayments payments) {
        this.payments = payments;
    }

    /** Routes {@code /orders/{id}/wait} (GET) and {@code /orders/{id}/paid} (POST); 404 for anything else. */
    void serve(HttpExchange exchange) throws IOException {
        Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
        if (!path.matches()) {
            HttpApi.notFound(exchange);
        } else if (path.group(2).equals("wait")) {
            HttpApi.handle(exchange, "GET", e -> await(e, orderId(path.group(1))));
        } else {
            HttpApi.handle(exchange, "POST", e -> paid(e, orderId(path.group(1))));
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the callback answers the exchange; respondQuietly throws nothing
    private void await(HttpExchange exchange, String orderId) throws IOException {
        Map<String, String> params = HttpApi.params(exchange);
        if (!params.containsKey("timeoutMs")) {
            throw new IllegalArgumentException("parameter 'timeoutMs' is required (0 to " + MAX_TIMEOUT_MS + ")");
        }
        long timeoutMs = HttpApi.longParam(params, "timeoutMs", 0, 0, MAX_TIMEOUT_MS);
        payments.awaitPayment(orderId, Duration.ofMillis(timeoutMs)).whenComplete((paid, error) -> {
            if (error == null) {
                HttpApi.respondQuietly(exchange, 200, json(paid));
            } else if ((error instanceof WaitTimeoutException timeout && timeout.closed())
                    || error instanceof IllegalStateException) { // answered by the close, or came after it
                HttpApi.respondQuietly(exchange, 503, HttpApi.error("SHUTTING_DOWN", "the server is stopping"));
            } else if (error instanceof TimeoutException) {
                HttpApi.respondQuietly(exchange, 204, "");
            } else {
                HttpApi.respondQuietly(exchange, 500, HttpApi.error("INTERNAL", String.valueOf(error)));
            }
        });
    }

    private void paid(HttpExchange exchange, String orderId) throws IOException {
        Map<String, String> params = HttpApi.params(exchange);
        if (!params.containsKey("amountCents")) {
            throw new IllegalArgumentException("parameter 'amountCents' is required (the amount paid, in cents)");
        }
        long amountCents = HttpApi.longParam(params, "amountCents", 0, 0, Long.MAX_VALUE);
        int answered = payments.onPayment(new Payment(orderId, amountCents, Instant.now()));
        HttpApi.respondQuietly(exchange, 200, new Json().beginObject().field("orderId", orderId)
                .field("answeredWaits", answered).endObject().toString());
    }

    private static String orderId(String raw) {
        if (!ORDER_ID.matcher(raw).matches()) {
            throw new IllegalArgumentException("order id must be 1 to 64 of A-Z a-z 0-9 . _ -: " + HttpApi.quote(raw));
        }
        return raw;
    }

    static String json(Payment payment) {
        return new Json().beginObject().field("orderId", payment.orderId())
                .field("amountCents", payment.amountCents())
                .field("paidAt", payment.paidAt().toString()).endObject().toString();
    }
}
