package io.purgatory.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Process CPU time, bytes allocated, heap after GC, and order statistics. */
final class Probe {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Probe() {
    }

    /** CPU time of the whole process (every thread, JIT and GC included), in ns. */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    /** Bytes allocated so far by each live thread, by thread id (JVM-internal and GC threads are not Java threads). */
    static Map<Long, Long> allocatedBytesByThread() {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> byThread = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                byThread.put(ids[i], bytes[i]);
            }
        }
        return byThread;
    }

    /** Bytes the calling thread has allocated so far. */
    static long currentThreadAllocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Bytes the Java threads allocated between two {@link #allocatedBytesByThread} readings (what
     * threads that ended meanwhile allocated is missed).
     */
    static long allocatedBetween(Map<Long, Long> before, Map<Long, Long> after) {
        long total = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }

    /** CPU time of {@code threads} so far (each alive), in ns. */
    static long threadCpuNanos(Thread... threads) {
        long total = 0;
        for (Thread t : threads) {
            total += Math.max(0, THREADS.getThreadCpuTime(t.getId()));
        }
        return total;
    }

    /**
     * Heap in use after full collections: collects until two readings agree within 0.1% (at most
     * 8 times), and returns the last reading in bytes.
     */
    static long heapUsedAfterGc() {
        long previous = Long.MAX_VALUE;
        long used = 0;
        for (int i = 0; i < 8; i++) {
            System.gc();
            Threads.sleepMillis(30);
            used = MEMORY.getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) <= used / 1000) {
                break;
            }
            previous = used;
        }
        return used;
    }

    /**
     * Collects garbage left by a previous run, so it is not charged to the next one, then lets the
     * machine quiet down for {@link Sizes#settleMillis()} (none in the smoke run, which measures nothing).
     */
    static void settle(Sizes sizes) {
        System.gc();
        if (sizes.settleMillis() > 0) {
            Threads.sleepMillis(sizes.settleMillis());
        }
    }

    /** The p-quantile (0..1) of {@code sorted} (nearest rank). */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    /** The p-quantile (0..1) of {@code sorted} (nearest rank); NaN if empty. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    /** The median of {@code values} (mean of the two middle ones for an even count); NaN if empty. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }
}
