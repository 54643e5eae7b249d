package io.purgatory.examples;

import static io.purgatory.PendingOrder.OLDEST_FIRST;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.purgatory.KeyedWaits;
import io.purgatory.PendingOperation;
import io.purgatory.PurgatoryFullException;
import io.purgatory.WaitTimeoutException;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GET /orders/{id}/wait: 200 with the payment once POST /orders/{id}/paid posts it, 204 after 20 s, 429 when
 * maxPending waits are pending, 503 on stop. GET /pending?limit=20: the oldest waits, as JSON.
 */
public final class LongPollServer {

    private static final System.Logger LOG = System.getLogger(LongPollServer.class.getName());
    private static final Pattern PATH = Pattern.compile("/orders/([^/]+)/(wait|paid)");
    private static final Pattern LIMIT = Pattern.compile("limit=(\\d{1,4})");
    private final KeyedWaits<String, String> payments;

    public LongPollServer(KeyedWaits<String, String> payments) {
        this.payments = payments;
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080), 0);
        KeyedWaits<String, String> payments = KeyedWaits.builder("payments")
                .retainEvents(Duration.ofSeconds(30), 100_000) // a payment just before its wait still answers it
                .maxPending(100_000) // a wait beyond gets 429
                .build();
        new LongPollServer(payments).serve(server);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(payments, server))); // SIGTERM, Ctrl-C
    }

    /** Stops the waits first, so that each waiting client gets its answer, then the server. */
    public static void stop(KeyedWaits<String, String> payments, HttpServer server) {
        payments.close(); // answers every pending wait now, on this thread: 503
        server.stop(1);   // takes no more connections; gives the answers being written up to 1 s
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the callback is the answer
    public void serve(HttpServer server) {
        server.createContext("/orders/", exchange -> {
            Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
            if (!path.matches()) {
                reply(exchange, 404, "");
            } else if (path.group(2).equals("paid")) {
                String payment = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                reply(exchange, 200, "answered waits: " + payments.complete(path.group(1), payment));
            } else { // holds no thread; a refusal fails the future, await does not throw
                payments.await(path.group(1), Duration.ofSeconds(20))
                        .whenComplete((payment, error) -> reply(exchange, status(error), payment));
            }
        });
        server.createContext("/pending", exchange -> { // for an operator: the oldest waits, keys shown
            Matcher limit = LIMIT.matcher(Objects.toString(exchange.getRequestURI().getQuery(), "limit=20"));
            if (!limit.matches()) {
                reply(exchange, 400, "");
                return;
            }
            StringJoiner json = new StringJoiner(",", "[", "]");
            for (PendingOperation wait : payments.listPending(Integer.parseInt(limit.group(1)), OLDEST_FIRST)) {
                StringJoiner keys = new StringJoiner(",", "[", "]");
                wait.keys().forEach(key -> keys.add(quote(key)));
                json.add("{\"keys\":" + keys + ",\"ageMs\":" + wait.ageMs() + ",\"timeLeftMs\":" + wait.timeLeftMs()
                        + ",\"tried\":" + wait.tried() + "}");
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            reply(exchange, 200, json.toString());
        });
    }

    /** 200 paid, 204 timed out; 429 full and 503 closed, both logged. */
    private static int status(Throwable error) {
        int status = error == null ? 200 : error instanceof WaitTimeoutException t && !t.closed() ? 204
                : error instanceof PurgatoryFullException ? 429 : 503; // closed: IllegalStateException, or t.closed()
        if (status > 204) {
            LOG.log(status == 429 ? Level.WARNING : Level.INFO, "wait answered {0}: {1}", status, error.toString());
        }
        return status;
    }

    /** {@code s} as a JSON string. */
    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        s.chars().forEach(c -> out.append(c == '"' || c == '\\' ? "\\" + (char) c
                : c < 0x20 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return out.append('"').toString();
    }

    private static void reply(HttpExchange exchange, int status, String body) {
        try (OutputStream out = exchange.getResponseBody()) {
            byte[] bytes = status == 200 ? body.getBytes(StandardCharsets.UTF_8) : new byte[0];
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            out.write(bytes);
        } catch (IOException clientGone) {
            // nobody left to answer
        }
    }
}
