package io.purgatory.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@link LongPollServer} on the plain JDK: a ConcurrentHashMap of CompletableFutures plus completeOnTimeout. */
public final class PlainJdkLongPollServer {

    private static final Pattern PATH = Pattern.compile("/orders/([^/]+)/(wait|paid)");
    private static final long RETAIN_NANOS = TimeUnit.SECONDS.toNanos(30);
    private final Map<String, Set<CompletableFuture<String>>> waits = new ConcurrentHashMap<>();
    private final Map<String, Paid> recent = new ConcurrentHashMap<>(); // not bounded in size
    private volatile boolean stopping;

    private record Paid(String payment, long atNanos) {
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080), 0);
        PlainJdkLongPollServer orders = new PlainJdkLongPollServer();
        orders.serve(server);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> orders.stop(server))); // SIGTERM, Ctrl-C
    }

    /** As {@link LongPollServer#stop}: first every pending wait gets its 503, then the server stops. */
    public void stop(HttpServer server) {
        stopping = true;
        waits.values().forEach(set -> set.forEach(wait -> wait.completeExceptionally(new IllegalStateException())));
        server.stop(1);
    }

    int pendingWaits() { // for the tests
        return waits.values().stream().mapToInt(Set::size).sum();
    }

    @SuppressWarnings("FutureReturnValueIgnored") // the callback is the answer
    public void serve(HttpServer server) {
        server.createContext("/orders/", exchange -> {
            Matcher path = PATH.matcher(exchange.getRequestURI().getPath());
            if (!path.matches()) {
                reply(exchange, 404, "");
            } else if (path.group(2).equals("paid")) {
                String payment = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                reply(exchange, 200, "answered waits: " + complete(path.group(1), payment));
            } else {
                await(path.group(1)) // holds no thread
                        .whenComplete((payment, error) -> reply(exchange, error != null ? 503
                                : payment == null ? 204 : 200, payment));
            }
        });
    }

    @SuppressWarnings("CollectionUndefinedEquality") // a wait is itself: identity is its equality
    private CompletableFuture<String> await(String orderId) {
        CompletableFuture<String> wait = new CompletableFuture<>();
        waits.compute(orderId, (id, set) -> {
            Set<CompletableFuture<String>> all = set == null ? ConcurrentHashMap.newKeySet() : set;
            all.add(wait);
            return all;
        });
        Paid early = recent.get(orderId); // read after the add: a payment racing with it is seen by one or the other
        if (early != null && System.nanoTime() - early.atNanos() < RETAIN_NANOS) {
            wait.complete(early.payment());
        }
        if (stopping) { // read after the add too, for a stop racing with it
            wait.completeExceptionally(new IllegalStateException());
        }
        return wait.completeOnTimeout(null, 20, TimeUnit.SECONDS).whenComplete((payment, error) ->
                waits.computeIfPresent(orderId, (id, set) -> set.remove(wait) && set.isEmpty() ? null : set));
    }

    private int complete(String orderId, String payment) {
        Paid paid = new Paid(payment, System.nanoTime());
        recent.put(orderId, paid);
        CompletableFuture.delayedExecutor(30, TimeUnit.SECONDS).execute(() -> recent.remove(orderId, paid));
        Set<CompletableFuture<String>> answered = waits.remove(orderId);
        return answered == null ? 0 : (int) answered.stream().filter(wait -> wait.complete(payment)).count();
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
