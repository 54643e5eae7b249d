package io.purgatory.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.purgatory.KeyedWaits;
import io.purgatory.WaitTimeoutException;
import io.purgatory.kafka.FeedStats;
import io.purgatory.kafka.KafkaFeed;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One instance of the payment service of {@link TwoInstanceDemo}: its own keyed waits, fed by its
 * own {@link KafkaFeed} of the topic, and an HTTP server on 127.0.0.1.
 * {@code GET /orders/{id}/wait?timeoutMs=} long-polls this instance's waits (200 with the
 * payment, 204 at the timeout, 503 when the instance stops);
 * {@code POST /orders/{id}/paid?amountCents=} publishes the payment to the topic (202) and
 * completes nothing here: every instance's feed hands it to its own waits, this one's included.
 * {@code GET /feed} shows the feed's numbers and the waits pending here.
 */
final class PaymentInstance implements AutoCloseable {

    private static final Pattern PATH = Pattern.compile("/orders/([A-Za-z0-9._-]{1,64})/(wait|paid)");
    private static final long MAX_TIMEOUT_MS = 60_000;

    private final String name;
    private final String topic;
    private final KeyedWaits<String, String> payments;
    private final KafkaFeed<String, String> feed;
    private final KafkaProducer<String, String> producer;
    private final HttpServer server;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** Starts an instance named after its port ({@code instance-8081}), so instances of several processes differ. */
    PaymentInstance(String bootstrapServers, String topic, int port) throws IOException {
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        this.name = "instance-" + server.getAddress().getPort();
        this.topic = topic;
        this.payments = KeyedWaits.builder(name).retainEvents(Duration.ofSeconds(30), 100_000).build();
        this.feed = KafkaFeed.builder(payments, topic).bootstrapServers(bootstrapServers)
                .key(record -> new String(record.key(), UTF_8))
                .value(record -> new String(record.value(), UTF_8))
                .closeWaits(true) // close() stops the feed, then closes the waits
                .build().start();
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
        server.createContext("/orders/", this::orders);
        server.createContext("/feed", exchange -> reply(exchange, 200, json(feed.stats(), payments.pending())));
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    String name() {
        return name;
    }

    private void orders(HttpExchange exchange) {
        try {
            route(exchange);
        } catch (NumberFormatException e) {
            reply(exchange, 400, "{\"error\":\"timeoutMs and amountCents are whole numbers\"}");
        } catch (IllegalStateException closed) { // the waits or the producer, closed: the instance is stopping
            reply(exchange, 503, "{\"error\":\"" + name + " is stopping\"}");
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the callbacks answer the exchange
    private void route(HttpExchange exchange) {
        Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
        Map<String, String> query = query(exchange);
        if (!path.matches()) {
            reply(exchange, 404, "{\"error\":\"no such path\"}");
        } else if (path.group(2).equals("wait") && exchange.getRequestMethod().equals("GET")) {
            long timeoutMs = Math.min(MAX_TIMEOUT_MS, Long.parseLong(query.getOrDefault("timeoutMs", "20000")));
            payments.await(path.group(1), Duration.ofMillis(timeoutMs)).whenComplete((payment, error) -> {
                if (error == null) {
                    reply(exchange, 200, "{\"answeredBy\":\"" + name + "\",\"payment\":" + payment + "}");
                } else if (error instanceof WaitTimeoutException timeout && !timeout.closed()) {
                    reply(exchange, 204, "");
                } else {
                    reply(exchange, 503, "{\"error\":\"" + name + " is stopping\"}");
                }
            });
        } else if (path.group(2).equals("paid") && exchange.getRequestMethod().equals("POST")) {
            if (!query.containsKey("amountCents")) {
                reply(exchange, 400, "{\"error\":\"parameter 'amountCents' is required (the amount paid, in cents)\"}");
                return;
            }
            String payment = "{\"orderId\":\"" + path.group(1) + "\",\"amountCents\":"
                    + Long.parseLong(query.get("amountCents")) + ",\"paidAt\":\"" + Instant.now()
                    + "\",\"receivedBy\":\"" + name + "\"}";
            producer.send(new ProducerRecord<>(topic, path.group(1), payment), (sent, error) -> reply(exchange,
                    error == null ? 202 : 503, error == null
                            ? "{\"publishedBy\":\"" + name + "\",\"partition\":" + sent.partition() + ",\"offset\":"
                              + sent.offset() + "}"
                            : "{\"error\":\"" + error.getMessage() + "\"}"));
        } else {
            reply(exchange, 405, "{\"error\":\"GET .../wait or POST .../paid\"}");
        }
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> params = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    params.put(URLDecoder.decode(pair.substring(0, eq), UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), UTF_8));
                }
            }
        }
        return params;
    }

    private static String json(FeedStats s, int pendingWaits) {
        return "{\"pendingWaits\":" + pendingWaits + ",\"eventsRead\":" + s.eventsRead()
                + ",\"eventsCompleted\":" + s.eventsCompleted()
                + ",\"eventsNoWaiter\":" + s.eventsNoWaiter() + ",\"mappingErrors\":" + s.mappingErrors()
                + ",\"lag\":" + s.lag() + ",\"lagging\":" + s.lagging() + ",\"partitions\":" + s.partitions() + "}";
    }

    private static void reply(HttpExchange exchange, int status, String body) {
        try (OutputStream out = exchange.getResponseBody()) {
            byte[] bytes = body.getBytes(UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            out.write(bytes);
        } catch (IOException clientGone) {
            // nobody left to answer
        }
    }

    /**
     * Stops the feed and closes the waits (each long poll is answered 503 on this thread), closes the
     * producer (a payment being published gets its 202 or 503), and only then stops the server, which
     * gives the answers still being written {@link DemoServer#STOP_DELAY_SECONDS}. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        feed.close();
        producer.close(Duration.ofSeconds(5));
        server.stop(DemoServer.STOP_DELAY_SECONDS);
    }
}
