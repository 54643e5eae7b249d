package io.purgatory.examples;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.purgatory.KeyedWaits;
import io.purgatory.PurgatoryStats;
import io.purgatory.micrometer.MicrometerMetrics;
import io.purgatory.timer.DaemonThreads;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The demo: a simulated broker with producer and consumer clients, served on 127.0.0.1 with a
 * live dashboard, for a bounded time. Prints one progress line a second and a summary at the end.
 * Run it with {@code mvn -q -pl examples -am compile exec:java} (options: {@code -Dexec.args="--help"}).
 */
public final class DemoServer implements AutoCloseable {

    private final DemoOptions options;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaManager replicaManager;
    private final OrderPayments payments;
    private final DemoStats stats;
    private final DemoLoad load;
    private final ExecutorService httpThreads = Executors.newFixedThreadPool(4, DaemonThreads.factory("demo-http"));
    private HttpServer server;
    private final java.util.Map<String, Long> expiredBeforeClose = new java.util.concurrent.ConcurrentHashMap<>();

    DemoServer(DemoOptions options) {
        this.options = options;
        // The histogram buckets the Grafana board needs come with MicrometerMetrics; the p50/p99 of
        // the console table are the demo's own, computed in process.
        registry.config().meterFilter(percentilesFor("purgatory.operations"));
        this.replicaManager = ReplicaManager.create(ReplicaManager.Config.defaults(), registry);
        replicaManager.createTopic("demo", options.partitions());
        this.payments = new OrderPayments(KeyedWaits.builder("orders").metrics(MicrometerMetrics.of(registry)),
                Duration.ofSeconds(30)); // a payment up to 30 s before its wait still answers it
        this.stats = new DemoStats(registry, replicaManager, List.of(replicaManager.producePurgatory()::stats,
                replicaManager.fetchPurgatory()::stats, payments::stats));
        this.load = new DemoLoad(options, replicaManager, payments, stats);
    }

    public static void main(String[] args) throws Exception {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return;
        }
        if (options.help()) {
            System.out.print(DemoOptions.USAGE);
            return;
        }
        DemoServer demo = new DemoServer(options);
        try (demo) {
            demo.start();
            demo.run(System.out);
        }
        System.out.println(demo.closingNote());
    }

    /** After close(): what became of the operations still pending (the close policy expires them). */
    String closingNote() {
        long settledAtClose = 0;
        int pendingNow = 0;
        for (PurgatoryStats s : stats.purgatories()) {
            settledAtClose += s.expired() - expiredBeforeClose.getOrDefault(s.name(), 0L);
            pendingNow += s.pending();
        }
        return String.format(Locale.ROOT, "closed: %d operations still pending were expired, so every caller"
                + " got its answer; %d pending now", settledAtClose, pendingNow);
    }

    /** Starts serving and the load; returns the port. */
    int start() throws IOException {
        server = new HttpApi(replicaManager, payments, registry, stats).start(options.port(), httpThreads);
        load.start();
        return server.getAddress().getPort();
    }

    /** Prints progress each second for the configured duration, then the summary. */
    void run(PrintStream out) throws InterruptedException {
        int port = server.getAddress().getPort();
        out.printf("purgatory demo: dashboard http://127.0.0.1:%d/  (Prometheus: /metrics, JSON: /api/stats)%n", port);
        out.printf("running %s: %d produce req/s (acks=all, timeout %d ms) over %d partitions, %d consumers;"
                        + " follower 2 stalls %ds every %ds%n",
                options.durationSeconds() == 0 ? "until stopped" : options.durationSeconds() + " s",
                options.produceRate(), options.timeoutMs(), options.partitions(), options.consumers(),
                options.stallSeconds(), options.stallEverySeconds());
        long start = System.nanoTime();
        long lastProduce = 0;
        long lastFetch = 0;
        for (int second = 1; options.durationSeconds() == 0 || second <= options.durationSeconds(); second++) {
            long due = start + TimeUnit.SECONDS.toNanos(second);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            long produce = stats.produceRequests.sum();
            long fetch = stats.fetchRequests.sum();
            out.println(progressLine(second, produce - lastProduce, fetch - lastFetch));
            lastProduce = produce;
            lastFetch = fetch;
        }
        load.close();
        out.println();
        out.print(summary());
    }

    String progressLine(int second, long producePerSecond, long fetchPerSecond) {
        int pending = 0;
        long completed = 0;
        long expired = 0;
        for (PurgatoryStats s : stats.purgatories()) {
            pending += s.pending();
            completed += s.completed() + s.completedAtOnce();
            expired += s.expired();
        }
        return String.format(Locale.ROOT,
                "t=%3ds  produce %6d/s  fetch %6d/s  pending %6d  completed %9d  expired %7d  p99 produce %s",
                second, producePerSecond, fetchPerSecond, pending, completed, expired,
                millis(stats.percentileMs("produce", "completed", 0.99)));
    }

    String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-9s %10s %10s %10s %9s %9s %7s %9s %9s %9s%n", "purgatory",
                "completed", "at once", "expired", "cancelled", "errors", "pending", "p50", "p99", "max"));
        for (PurgatoryStats s : stats.purgatories()) {
            sb.append(String.format(Locale.ROOT, "%-9s %10d %10d %10d %9d %9d %7d %9s %9s %9s%n", s.name(),
                    s.completed(), s.completedAtOnce(), s.expired(), s.cancelled(), s.callbackErrors(), s.pending(),
                    millis(stats.percentileMs(s.name(), "completed", 0.5)),
                    millis(stats.percentileMs(s.name(), "completed", 0.99)),
                    millis(stats.maxMs(s.name(), "completed"))));
        }
        sb.append(String.format(Locale.ROOT, "requests: %d produce, %d fetch, %d orders; produce requests that"
                        + " timed out waiting for acks: %d%n", stats.produceRequests.sum(), stats.fetchRequests.sum(),
                stats.orders.sum(), replicaManager.produceExpirations()));
        return sb.toString();
    }

    private static String millis(double ms) {
        return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, "%.1f ms", ms);
    }

    private static MeterFilter percentilesFor(String name) {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals(name)) {
                    return config;
                }
                return DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config);
            }
        };
    }

    ReplicaManager replicaManager() {
        return replicaManager;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Stops the load and the server, then closes the purgatories: pending requests get their answers. */
    @Override
    public void close() {
        load.close();
        for (PurgatoryStats s : stats.purgatories()) {
            expiredBeforeClose.put(s.name(), s.expired());
        }
        if (server != null) {
            server.stop(0);
        }
        replicaManager.close();
        payments.close();
        httpThreads.shutdown();
    }
}
