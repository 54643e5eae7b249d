package io.purgatory.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.examples.DelayedFetch.FetchPartitionData;
import io.purgatory.examples.DelayedProduce.PartitionResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's HTTP endpoints on 127.0.0.1: {@code POST /produce} and {@code GET /fetch} (answered
 * from the purgatories' callbacks), the order-payment long poll {@code GET /orders/{id}/wait} and
 * {@code POST /orders/{id}/paid} ({@link OrderApi}), {@code GET /metrics} (Prometheus text),
 * {@code GET /api/stats} (JSON), {@code GET /api/history?after=} (the dashboard's last two minutes,
 * {@link DemoHistory}), {@code GET /api/pending?limit=} (each purgatory's oldest pending operations,
 * {@link OldestWaits}) and {@code GET /} (the dashboard). Every error is JSON with a status: bad
 * parameters 400 naming them, an unknown partition 404, a payload over {@link #MAX_PAYLOAD_BYTES}
 * or a body over {@link #MAX_BODY_BYTES} 413.
 */
final class HttpApi {

    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    static final long MAX_WAIT_LIMIT_MS = 60_000;
    /** The largest record a produce takes, as Kafka's default {@code message.max.bytes} (about 1 MiB). */
    static final int MAX_PAYLOAD_BYTES = 1 << 20;
    /** The largest request body read: a form carrying a payload of the maximum size, URL-encoded. */
    static final int MAX_BODY_BYTES = 4 << 20;
    /** A refused body is read to its end up to this size, so that the client reads its 413; beyond, it closes. */
    private static final long MAX_DRAIN_BYTES = 64L << 20;
    /**
     * The JDK's server closes the connection without an answer when a request line and headers pass
     * this property's value (384 KiB by default), so a payload sent in the query would never get its
     * 413. The property is read once, when the first server starts.
     */
    static final String MAX_REQUEST_HEADER_PROPERTY = "sun.net.httpserver.maxReqHeaderSize";
    static final int MAX_REQUEST_HEADER_BYTES = 8 << 20;
    /** An error message echoes at most this much of a bad value. */
    static final int MAX_ECHOED_CHARS = 80;

    private final ReplicaManager replicaManager;
    private final OrderApi orders;
    private final PrometheusMeterRegistry registry;
    private final DemoStats stats;
    private final DemoHistory history;
    private final OldestWaits oldest;
    private final byte[] dashboard;

    HttpApi(ReplicaManager replicaManager, OrderPayments payments, PrometheusMeterRegistry registry, DemoStats stats,
            DemoHistory history) {
        this.replicaManager = replicaManager;
        this.orders = new OrderApi(payments);
        this.registry = registry;
        this.stats = stats;
        this.history = history;
        this.oldest = new OldestWaits(List.of(replicaManager.producePurgatory(), replicaManager.fetchPurgatory(),
                payments.purgatory()));
        try (InputStream in = HttpApi.class.getResourceAsStream("dashboard.html")) {
            if (in == null) {
                throw new IllegalStateException("dashboard.html missing from the classpath");
            }
            this.dashboard = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Lets queries up to {@link #MAX_REQUEST_HEADER_BYTES} reach the handlers, unless the property is
     * set already; effective only before the JVM's first {@code HttpServer} starts (the demo's main
     * calls it first; the tests set the property in the surefire configuration).
     */
    static void allowLongQueries() {
        if (System.getProperty(MAX_REQUEST_HEADER_PROPERTY) == null) {
            System.setProperty(MAX_REQUEST_HEADER_PROPERTY, Integer.toString(MAX_REQUEST_HEADER_BYTES));
        }
    }

    /** Starts serving on 127.0.0.1:{@code port} (0: any free port); stop it with {@code stop(0)}. */
    HttpServer start(int port, Executor executor) throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port);
        HttpServer server = HttpServer.create(loopback, 256);
        server.createContext("/produce", exchange -> handle(exchange, "POST", this::produce));
        server.createContext("/fetch", exchange -> handle(exchange, "GET", this::fetch));
        server.createContext("/orders/", orders::serve);
        server.createContext("/metrics", exchange -> handle(exchange, "GET", e ->
                respond(e, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape())));
        server.createContext("/api/stats", exchange -> handle(exchange, "GET", e ->
                respond(e, 200, "application/json", stats.toJson())));
        server.createContext("/api/history", exchange -> handle(exchange, "GET", e -> respond(e, 200,
                "application/json", history.toJson(longParam(params(e), "after", -1, -1, Long.MAX_VALUE)))));
        server.createContext("/api/pending", exchange -> handle(exchange, "GET", this::pending));
        server.createContext("/", exchange -> handle(exchange, "GET", this::dashboard));
        server.setExecutor(executor);
        server.start();
        return server;
    }

    @FunctionalInterface
    interface Handler {
        void handle(HttpExchange exchange) throws IOException;
    }

    /** A request refused with an HTTP status and an error code (a bad parameter is an IllegalArgumentException). */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;

        Refusal(int status, String code, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
        }
    }

    /**
     * Runs {@code handler} for {@code method}, else 405; a {@link Refusal} answers its status, an
     * IllegalArgumentException 400, an IllegalStateException 503 (a purgatory closed: the demo is
     * stopping), other failures 500.
     */
    static void handle(HttpExchange exchange, String method, Handler handler) throws IOException {
        try {
            if (!exchange.getRequestMethod().equals(method)) {
                exchange.getResponseHeaders().set("Allow", method);
                respond(exchange, 405, "application/json", error("METHOD_NOT_ALLOWED", "use " + method));
                return;
            }
            handler.handle(exchange);
        } catch (Refusal refused) {
            respond(exchange, refused.status, "application/json", error(refused.code, refused.getMessage()));
        } catch (IllegalArgumentException bad) {
            respond(exchange, 400, "application/json", error("BAD_REQUEST", bad.getMessage()));
        } catch (IllegalStateException closed) { // what a closed purgatory or keyed waits throw: the demo is stopping
            respond(exchange, 503, "application/json", error("SHUTTING_DOWN", "the server is stopping"));
        } catch (RuntimeException | IOException failure) {
            LOG.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), failure);
            respond(exchange, 500, "application/json", error("INTERNAL", String.valueOf(failure)));
        }
    }

    private void produce(HttpExchange exchange) throws IOException {
        Map<String, String> params = params(exchange);
        TopicPartition tp = new TopicPartition(params.getOrDefault("topic", "demo"), intParam(params, "partition"));
        int acks = acks(params.getOrDefault("acks", "all"));
        long timeoutMs = longParam(params, "timeoutMs", 30_000, 0, 300_000);
        String payload = params.get("payload");
        if (payload == null || payload.isEmpty()) {
            throw new IllegalArgumentException("parameter 'payload' is required and must not be empty");
        }
        byte[] record = payload.getBytes(StandardCharsets.UTF_8);
        if (record.length > MAX_PAYLOAD_BYTES) {
            throw new Refusal(413, "PAYLOAD_TOO_LARGE", "parameter 'payload' is " + record.length
                    + " bytes; a record holds at most " + MAX_PAYLOAD_BYTES);
        }
        requireKnown(tp);
        stats.produceRequests.increment();
        replicaManager.appendRecords(timeoutMs, acks, Map.of(tp, record),
                responses -> {
                    PartitionResponse r = responses.get(tp);
                    respondQuietly(exchange, 200, new Json().beginObject()
                            .field("topic", tp.topic()).field("partition", tp.partition())
                            .field("error", r.error().name()).field("offset", r.baseOffset())
                            .endObject().toString());
                });
    }

    private void fetch(HttpExchange exchange) throws IOException {
        Map<String, String> params = params(exchange);
        TopicPartition tp = new TopicPartition(params.getOrDefault("topic", "demo"), intParam(params, "partition"));
        long offset = longParam(params, "offset", -1, 0, Long.MAX_VALUE);
        if (offset < 0) {
            throw new IllegalArgumentException("parameter 'offset' is required");
        }
        int minBytes = (int) longParam(params, "minBytes", 1, 0, Integer.MAX_VALUE);
        long maxWaitMs = longParam(params, "maxWaitMs", 500, 0, MAX_WAIT_LIMIT_MS);
        int maxBytes = (int) longParam(params, "maxBytes", 1 << 20, 1, 64 << 20);
        requireKnown(tp);
        stats.fetchRequests.increment();
        replicaManager.fetchMessages(maxWaitMs, minBytes, maxBytes, Map.of(tp, offset), data -> {
            FetchPartitionData d = data.get(tp);
            Json json = new Json().beginObject()
                    .field("topic", tp.topic()).field("partition", tp.partition())
                    .field("error", d.error().name()).field("highWatermark", d.highWatermark())
                    .beginArray("records");
            long o = offset;
            for (byte[] record : d.records()) {
                json.beginObject().field("offset", o++)
                        .field("value", new String(record, StandardCharsets.UTF_8)).endObject();
            }
            respondQuietly(exchange, 200, json.endArray().endObject().toString());
        });
    }

    private void pending(HttpExchange exchange) throws IOException {
        long limit = longParam(params(exchange), "limit", OldestWaits.DEFAULT_LIMIT, 1, OldestWaits.MAX_LIMIT);
        respond(exchange, 200, "application/json", oldest.toJson((int) limit));
    }

    private void dashboard(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().equals("/")) {
            notFound(exchange);
            return;
        }
        respond(exchange, 200, "text/html; charset=utf-8", dashboard);
    }

    /** A 404 for a partition this broker does not have (Kafka answers UNKNOWN_TOPIC_OR_PARTITION in a 200). */
    private void requireKnown(TopicPartition tp) {
        if (!replicaManager.hasPartition(tp)) {
            throw new Refusal(404, Errors.UNKNOWN_TOPIC_OR_PARTITION.name(),
                    "unknown partition: " + quote(tp.toString()));
        }
    }

    // ---- parameters ----

    /** Query-string parameters, plus a form-encoded body's (the body wins). Reads the body: see {@link #body}. */
    static Map<String, String> params(HttpExchange exchange) throws IOException {
        Map<String, String> params = new HashMap<>();
        parseInto(exchange.getRequestURI().getRawQuery(), params);
        byte[] body = body(exchange);
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null && type.startsWith("application/x-www-form-urlencoded")) {
            parseInto(new String(body, StandardCharsets.UTF_8), params);
        }
        return params;
    }

    /**
     * The request body, at most {@link #MAX_BODY_BYTES}; a longer one is a 413 {@link Refusal}. Its
     * rest is read and dropped first (up to {@link #MAX_DRAIN_BYTES}), because a server that answers
     * before the client has sent everything and then closes makes the client's TCP stack reset the
     * connection, and the client never reads the answer.
     */
    static byte[] body(HttpExchange exchange) throws IOException {
        InputStream in = exchange.getRequestBody();
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        if (body.length <= MAX_BODY_BYTES) {
            return body;
        }
        long dropped = body.length;
        byte[] buffer = new byte[64 * 1024];
        int n = 0;
        while (dropped <= MAX_DRAIN_BYTES && n >= 0) {
            n = in.read(buffer);
            dropped += Math.max(n, 0);
        }
        throw new Refusal(413, "PAYLOAD_TOO_LARGE", "the request body is over " + MAX_BODY_BYTES + " bytes");
    }

    private static void parseInto(String encoded, Map<String, String> params) {
        if (encoded == null || encoded.isEmpty()) {
            return;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            params.put(key, value);
        }
    }

    /**
     * {@code raw} in quotes, to echo in an error message: at most {@link #MAX_ECHOED_CHARS} of it,
     * and when it is longer, the message says how long it was.
     */
    static String quote(String raw) {
        if (raw.length() <= MAX_ECHOED_CHARS) {
            return "'" + raw + "'";
        }
        return "'" + raw.substring(0, MAX_ECHOED_CHARS) + "...' (" + raw.length() + " characters, truncated to "
                + MAX_ECHOED_CHARS + ")";
    }

    static int intParam(Map<String, String> params, String name) {
        String raw = params.get(name);
        if (raw == null) {
            throw new IllegalArgumentException("parameter '" + name + "' is required");
        }
        try {
            int v = Integer.parseInt(raw.trim());
            if (v < 0) {
                throw new IllegalArgumentException("parameter '" + name + "' must be >= 0: " + v);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + name + "' must be an integer: " + quote(raw));
        }
    }

    static long longParam(Map<String, String> params, String name, long dflt, long min, long max) {
        String raw = params.get(name);
        if (raw == null) {
            return dflt;
        }
        long v;
        try {
            v = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + name + "' must be an integer: " + quote(raw));
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException("parameter '" + name + "' must be between " + min + " and " + max
                    + ": " + v);
        }
        return v;
    }

    static int acks(String raw) {
        return switch (raw.trim()) {
            case "all", "-1" -> -1;
            case "0" -> 0;
            case "1" -> 1;
            default -> throw new IllegalArgumentException("parameter 'acks' must be all, -1, 0 or 1: " + quote(raw));
        };
    }

    // ---- responses ----

    static void notFound(HttpExchange exchange) throws IOException {
        respond(exchange, 404, "application/json", error("NOT_FOUND", quote(exchange.getRequestURI().getPath())));
    }

    static String error(String code, String message) {
        return new Json().beginObject().field("error", code).field("message", message).endObject().toString();
    }

    /** Answers {@code exchange} with JSON (no body for 204); a client gone meanwhile is only logged. */
    static void respondQuietly(HttpExchange exchange, int status, String json) {
        try {
            respond(exchange, status, "application/json", json);
        } catch (IOException e) {
            LOG.debug("client went away before its answer: {}", e.toString());
        }
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        respond(exchange, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        if (status != 204) {
            exchange.getResponseHeaders().set("Content-Type", type);
        }
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, status == 204 ? -1 : body.length); // 204: no body at all
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
