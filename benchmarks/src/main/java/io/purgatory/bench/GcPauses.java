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
 * thread, after the fact): how many, their total and longest duration. For G1 a young or mixed
 * collection's duration is its pause. {@link #close()} stops listening. Thread-safe.
 */
final class GcPauses implements AutoCloseable {

    private final NotificationListener listener = this::onNotification;
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private int count;
    private long totalMs;
    private long longestMs;

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
            long ms = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo().getDuration();
            count++;
            totalMs += ms;
            longestMs = Math.max(longestMs, ms);
        }
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
            return new Metrics(new Metric(workload, "GC collections"), new Metric(workload, "GC time total (ms)"),
                    new Metric(workload, "GC longest (ms)"));
        }
    }
}
