package io.purgatory.examples;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.sun.net.httpserver.HttpServer;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo: a simulated broker with producer and consumer clients, served on 127.0.0.1 with a
 * live dashboard, for a bounded time or until stopped. Prints one progress line a second, and at
 * the end (or on SIGTERM) a summary, then closes its purgatories. Run it with
 * {@code mvn -q -pl examples -am compile exec:java} (options: {@code -Dexec.args="--help"}).
 */
public final class DemoServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoServer.class);

    /**
     * How long {@code HttpServer.stop} lets the answers in flight finish. It closes the connections
     * after that; the JDK 17 server waits the whole delay even when nothing is in flight.
     */
    static final int STOP_DELAY_SECONDS = 1;

    private final DemoOptions options;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ReplicaManager replicaManager;
    private final OrderPayments payments;
    private final DemoStats stats;
    private final DemoLoad load;
    private final ExecutorService httpThreads = Executors.newFixedThreadPool(4, DaemonThreads.factory("demo-http"));
    private final ScheduledExecutorService sampler =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("demo-history"));
    private final DemoHistory history;
    private final Map<String, Long> expiredBeforeClose = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private HttpServer server;
    @GuardedBy("this")
    private boolean finished;

    DemoServer(DemoOptions options) {
        this.options = options;
        // The histogram buckets the Grafana board needs come with MicrometerMetrics; the p50/p99 of
        // the console table are the demo's own, computed in process.
        registry.config().meterFilter(DemoStats.percentiles());
        this.replicaManager = ReplicaManager.create(ReplicaManager.Config.defaults(), registry);
        replicaManager.createTopic("demo", options.partitions());
        this.payments = new OrderPayments(KeyedWaits.builder("orders").metrics(MicrometerMetrics.of(registry)),
                Duration.ofSeconds(30)); // a payment up to 30 s before its wait still answers it
        this.stats = new DemoStats(registry, replicaManager, List.of(replicaManager.producePurgatory()::stats,
                replicaManager.fetchPurgatory()::stats, payments::stats));
        this.load = new DemoLoad(options, replicaManager, payments, stats);
        this.history = new DemoHistory(stats, System.nanoTime());
    }

    /** Runs the demo; exits with status 2 on bad options, 1 if it cannot listen on its port. */
    public static void main(String[] args) throws InterruptedException {
        int status = launch(System.out, System.err, args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Parses {@code args} and runs the demo for its duration, or until the JVM is asked to stop
     * (SIGTERM, Ctrl-C): either way it prints the summary and closes the purgatories. Returns the
     * exit status: 0, 2 for bad options (usage on {@code err}), 1 if the port is taken.
     */
    static int launch(PrintStream out, PrintStream err, String... args) throws InterruptedException {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.print(DemoOptions.USAGE);
            return 2;
        }
        if (options.help()) {
            out.print(DemoOptions.USAGE);
            return 0;
        }
        HttpApi.allowLongQueries();
        DemoServer demo = new DemoServer(options);
        try {
            demo.start();
        } catch (IOException e) {
            err.println("cannot serve on 127.0.0.1:" + options.port() + ": " + e);
            demo.close();
            return 1;
        }
        Thread onStop = new Thread(() -> demo.finish(out), "demo-shutdown");
        Runtime.getRuntime().addShutdownHook(onStop);
        demo.run(out);
        demo.finish(out);
        try {
            Runtime.getRuntime().removeShutdownHook(onStop);
        } catch (IllegalStateException shuttingDown) {
            // the hook has run or is running: finish() has printed once
        }
        return 0;
    }

    /**
     * Ends the demo once, whoever calls first (the end of {@link #run}, or the shutdown hook on
     * SIGTERM): stops the load, prints the summary, closes the purgatories (their close policy
     * answers what is pending) and prints what became of it. A second call returns once the first
     * has printed everything.
     */
    synchronized void finish(PrintStream out) {
        if (finished) {
            return;
        }
        finished = true;
        load.close();
        out.println();
        out.print(summary());
        close();
        out.println(closingNote());
        out.flush();
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

    /** Starts serving, the load and the history's sampling; returns the port. */
    @SuppressWarnings("FutureReturnValueIgnored") // sampleHistory throws nothing; shutdownNow() ends it
    int start() throws IOException {
        server = new HttpApi(replicaManager, payments, registry, stats, history).start(options.port(), httpThreads);
        load.start();
        sampler.scheduleAtFixedRate(this::sampleHistory, 1, 1, TimeUnit.SECONDS);
        return server.getAddress().getPort();
    }

    private void sampleHistory() {
        try {
            history.sample(System.nanoTime());
        } catch (RuntimeException e) { // a periodic task that throws is never run again: log and go on
            LOG.warn("history sample failed", e);
        }
    }

    /** Prints progress each second for the configured duration, or until {@link #finish} has run. */
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
            synchronized (this) { // no progress line after (or amid) finish()'s summary
                if (finished) {
                    return;
                }
                out.println(progressLine(second, produce - lastProduce, fetch - lastFetch));
            }
            lastProduce = produce;
            lastFetch = fetch;
        }
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
        sb.append(String.format(Locale.ROOT, "%-9s %10s %10s %10s %9s %9s %9s %7s %9s %9s %9s%n", "purgatory",
                "completed", "at once", "expired", "cancelled", "errors", "rejected", "pending", "p50", "p99", "max"));
        for (PurgatoryStats s : stats.purgatories()) {
            sb.append(String.format(Locale.ROOT, "%-9s %10d %10d %10d %9d %9d %9d %7d %9s %9s %9s%n", s.name(),
                    s.completed(), s.completedAtOnce(), s.expired(), s.cancelled(), s.callbackErrors(), s.rejected(),
                    s.pending(),
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

    ReplicaManager replicaManager() {
        return replicaManager;
    }

    OrderPayments payments() {
        return payments;
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    DemoHistory history() {
        return history;
    }

    /** The server, once started (tests add pages to it). */
    HttpServer httpServer() {
        return server;
    }

    /**
     * Stops the load, closes the purgatories, then the server. Closing a purgatory answers each of its
     * pending requests on this thread (a long poll gets 503), and a request that comes after gets 503
     * too; only then does the server stop, giving the answers still being written
     * {@link #STOP_DELAY_SECONDS}. Stopping it first would cut the waiting clients off without an
     * answer. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        sampler.shutdownNow();
        load.close();
        for (PurgatoryStats s : stats.purgatories()) {
            expiredBeforeClose.put(s.name(), s.expired());
        }
        replicaManager.close();
        payments.close();
        if (server != null) {
            server.stop(STOP_DELAY_SECONDS);
        }
        httpThreads.shutdown();
    }
}
