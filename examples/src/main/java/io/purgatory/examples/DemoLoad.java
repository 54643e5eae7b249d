package io.purgatory.examples;

import io.purgatory.examples.OrderPayments.Payment;
import io.purgatory.timer.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The simulated cluster around the broker, and its clients: followers replicating with a lag
 * (follower 2 stalls now and then, so it leaves the in-sync set and produce requests wait or time
 * out), leadership moving away from one partition and back, producer clients (acks=all),
 * consumer clients long-polling, and orders waiting for payment events (one customer in ten
 * leaves before the answer: that wait is cancelled; a payment may come after its wait ended, late;
 * now and then a payment for an order placed elsewhere finds no one). All threads are daemons.
 */
@SuppressWarnings("FutureReturnValueIgnored") // the demo's scheduled tasks and awaits are fire-and-forget
final class DemoLoad implements AutoCloseable {

    private static final int MAX_IN_FLIGHT_PER_PRODUCER = 2_000;

    private final DemoOptions options;
    private final ReplicaManager replicaManager;
    private final OrderPayments payments;
    private final DemoStats stats;
    private final ScheduledExecutorService cluster =
            Executors.newScheduledThreadPool(2, DaemonThreads.factory("demo-cluster"));
    private final ExecutorService clients;
    private final ExecutorService consumerLoop =
            Executors.newSingleThreadExecutor(DaemonThreads.factory("demo-consumer"));
    private final Map<TopicPartition, Long> consumerOffsets = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private volatile boolean follower2Stalled;

    DemoLoad(DemoOptions options, ReplicaManager replicaManager, OrderPayments payments, DemoStats stats) {
        this.options = options;
        this.replicaManager = replicaManager;
        this.payments = payments;
        this.stats = stats;
        this.clients = Executors.newFixedThreadPool(Math.max(1, options.producers()),
                DaemonThreads.factory("demo-producer"));
    }

    void start() {
        cluster.scheduleWithFixedDelay(this::replicate, 2, 2, TimeUnit.MILLISECONDS);
        cluster.scheduleWithFixedDelay(replicaManager::maybeShrinkIsr, 100, 100, TimeUnit.MILLISECONDS);
        if (options.stallEverySeconds() > 0) {
            cluster.scheduleAtFixedRate(this::stallFollower2, options.stallEverySeconds(),
                    options.stallEverySeconds(), TimeUnit.SECONDS);
        }
        cluster.scheduleAtFixedRate(this::moveLeadership, 7, 7, TimeUnit.SECONDS);
        if (options.orderRate() > 0) {
            long periodMicros = TimeUnit.SECONDS.toMicros(1) / options.orderRate();
            cluster.scheduleAtFixedRate(this::newOrder, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
        }
        for (int i = 0; i < options.producers(); i++) {
            clients.execute(this::produceLoop);
        }
        List<TopicPartition> partitions = replicaManager.partitions();
        for (int i = 0; i < options.consumers(); i++) {
            for (int p = i; p < partitions.size(); p += options.consumers()) {
                TopicPartition tp = partitions.get(p);
                consumerOffsets.put(tp, 0L);
                consumerLoop.execute(() -> fetch(tp));
            }
        }
    }

    private void replicate() {
        replicaManager.replicate(1, options.followerLagMs());
        if (!follower2Stalled) {
            replicaManager.replicate(2, options.followerLagMs() * 2);
        }
    }

    private void stallFollower2() {
        follower2Stalled = true;
        cluster.schedule(() -> follower2Stalled = false, options.stallSeconds(), TimeUnit.SECONDS);
    }

    private void moveLeadership() {
        List<TopicPartition> partitions = replicaManager.partitions();
        TopicPartition tp = partitions.get(ThreadLocalRandom.current().nextInt(partitions.size()));
        replicaManager.electLeader(tp, 1);
        cluster.schedule(() -> replicaManager.electLeader(tp, ReplicaManager.LOCAL_BROKER),
                1500, TimeUnit.MILLISECONDS);
    }

    private void newOrder() {
        if (!running) {
            return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String orderId = "order-" + random.nextLong(1L << 40);
        stats.orders.increment();
        // a timeout fails the future: nothing to do here
        CompletableFuture<Payment> wait = payments.awaitPayment(orderId, Duration.ofSeconds(2));
        if (random.nextInt(10) == 0) { // one customer in ten leaves the page: the wait's future is cancelled
            cluster.schedule(() -> wait.cancel(false), random.nextInt(2_000), TimeUnit.MILLISECONDS);
        }
        if (random.nextInt(20) == 0) { // a payment for an order nobody waits for here: it finds no one
            payments.onPayment(new Payment("elsewhere-" + random.nextLong(1L << 40), 100, Instant.now()));
        }
        if (random.nextInt(4) != 0) { // one order in four is never paid
            long amountCents = random.nextLong(100, 100_000);
            cluster.schedule(() -> payments.onPayment(new Payment(orderId, amountCents, Instant.now())),
                    random.nextInt(2_500), TimeUnit.MILLISECONDS);
        }
    }

    private void produceLoop() {
        List<TopicPartition> partitions = replicaManager.partitions();
        Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT_PER_PRODUCER);
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) * Math.max(1, options.producers()) / options.produceRate();
        long next = System.nanoTime();
        byte[] payload = "a demo record of about one hundred bytes, to give the fetchers something to read"
                .getBytes(StandardCharsets.UTF_8);
        while (running) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            next += intervalNanos;
            if (!inFlight.tryAcquire()) {
                continue; // the broker is this far behind: drop the send, as a client with a full buffer would
            }
            TopicPartition tp = partitions.get(ThreadLocalRandom.current().nextInt(partitions.size()));
            stats.produceRequests.increment();
            replicaManager.appendRecords(options.timeoutMs(), -1, Map.of(tp, payload), response -> inFlight.release());
        }
    }

    private void fetch(TopicPartition tp) {
        if (!running) {
            return;
        }
        stats.fetchRequests.increment();
        replicaManager.fetchMessages(500, 1_000, 64 * 1024, Map.of(tp, consumerOffsets.get(tp)), data -> {
            DelayedFetch.FetchPartitionData d = data.get(tp);
            if (d.error() == Errors.NONE) {
                consumerOffsets.merge(tp, (long) d.records().size(), Long::sum);
            } else if (d.error() == Errors.OFFSET_OUT_OF_RANGE) {
                consumerOffsets.put(tp, 0L);
            }
            if (running && !consumerLoop.isShutdown()) {
                if (d.error() == Errors.NOT_LEADER_OR_FOLLOWER) {
                    cluster.schedule(() -> consumerLoop.execute(() -> fetch(tp)), 100, TimeUnit.MILLISECONDS);
                } else {
                    consumerLoop.execute(() -> fetch(tp));
                }
            }
        });
    }

    /** The consumers' positions (summary). */
    List<String> consumerPositions() {
        List<String> out = new ArrayList<>();
        consumerOffsets.forEach((tp, o) -> out.add(tp + "@" + o));
        out.sort(null);
        return out;
    }

    /** Stops the load; idempotent. Outcome counts are in the purgatories. */
    @Override
    public void close() {
        running = false;
        clients.shutdown();
        cluster.shutdownNow();
        consumerLoop.shutdown();
        try {
            clients.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
