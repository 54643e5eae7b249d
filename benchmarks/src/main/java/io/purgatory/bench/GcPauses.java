package io.purgatory.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The garbage collections of a run, from the collectors' notifications (delivered on a JMX
 * thread, after the fact): how many pauses, their total and longest duration, and apart from them
 * the concurrent cycles. For G1 a young or mixed collection's duration is its pause; G1's
 * concurrent marking (a collector of its own from JDK 20, "G1 Concurrent GC") and ZGC's cycles
 * ("ZGC Cycles", JDK 17; "ZGC Minor Cycles" and "ZGC Major Cycles", generational ZGC) run beside
 * the application and are counted as cycles, not pauses; ZGC's pauses are its "... Pauses"
 * collectors. {@link #close()} stops listening. Thread-safe.
 */
final class GcPauses implements AutoCloseable {

    private final NotificationListener listener = this::onNotification;
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private int count;
    private long totalMs;
    private long longestMs;
    private int cycles;
    private long cyclesMs;

    private GcPauses() {
    }

    /** Starts listening to every collector. */
    static GcPauses start() {
        GcPauses pauses = new GcPauses();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(pauses.listener, null, null);
                pauses.emitters.add(emitter);
            }
        }
        return pauses;
    }

    private synchronized void onNotification(Notification n, Object handback) {
        if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            long ms = info.getGcInfo().getDuration();
            if (isConcurrent(info.getGcName())) {
                cycles++;
                cyclesMs += ms;
                return;
            }
            count++;
            totalMs += ms;
            longestMs = Math.max(longestMs, ms);
        }
    }

    /** True for a collector whose notifications are concurrent cycles, not pauses. */
    static boolean isConcurrent(String collector) {
        return collector.contains("Cycles") || collector.contains("Concurrent");
    }

    /** Concurrent cycles that ended (ZGC, G1's marking on JDK 20+), not counted as pauses. */
    synchronized int cycles() {
        return cycles;
    }

    synchronized long cyclesMs() {
        return cyclesMs;
    }

    synchronized int count() {
        return count;
    }

    synchronized long totalMs() {
        return totalMs;
    }

    synchronized long longestMs() {
        return longestMs;
    }

    /** Records count, total and longest under {@code title}'s GC metrics. */
    void report(Metrics m, Results.Recorder recorder) {
        recorder.record(m.count(), count());
        recorder.record(m.totalMs(), (double) totalMs());
        recorder.record(m.longestMs(), (double) longestMs());
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException alreadyGone) {
                // nothing to remove
            }
        }
        emitters.clear();
    }

    /** The GC rows of one workload. */
    record Metrics(Metric count, Metric totalMs, Metric longestMs) {
        static Metrics of(String workload) {
            return new Metrics(new Metric(workload, "GC pauses"), new Metric(workload, "GC pause total (ms)"),
                    new Metric(workload, "GC longest pause (ms)"));
        }
    }
}
