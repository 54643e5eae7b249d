package io.purgatory.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a run's CPU went, by thread: a snapshot of every live thread's CPU time at the start, set
 * against one at the end. A thread that started meanwhile counts from zero, one that ended is
 * missed (the runs end their threads after the last snapshot). What no Java thread accounts for
 * (GC, JIT, the VM) is the process's CPU minus theirs.
 */
final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long processNanos = Probe.processCpuNanos();
    private final Map<Long, Long> nanosById = snapshot();

    /** The CPU each group of threads used since this snapshot, in ns, grouping by name. */
    Split since(String driverPart, String executorPart) {
        long process = Probe.processCpuNanos() - processNanos;
        Map<Long, Long> now = snapshot();
        long driver = 0;
        long executor = 0;
        long inserter = 0;
        long java = 0;
        long self = Thread.currentThread().getId();
        ThreadInfo[] infos = THREADS.getThreadInfo(now.keySet().stream().mapToLong(Long::longValue).toArray());
        for (ThreadInfo info : infos) {
            if (info == null) {
                continue;
            }
            long used = now.get(info.getThreadId()) - nanosById.getOrDefault(info.getThreadId(), 0L);
            java += used;
            String name = info.getThreadName();
            if (info.getThreadId() == self) {
                inserter += used;
            } else if (name.contains(driverPart)) {
                driver += used;
            } else if (name.contains(executorPart)) {
                executor += used;
            }
        }
        return new Split(driver, executor, inserter, java - driver - executor - inserter, process - java);
    }

    private static Map<Long, Long> snapshot() {
        Map<Long, Long> nanos = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            long cpu = THREADS.getThreadCpuTime(id);
            if (cpu >= 0) {
                nanos.put(id, cpu);
            }
        }
        return nanos;
    }

    /**
     * CPU in ns: the timer's driver, the expiration executor, the inserting thread, the other Java
     * threads (the harness's sampler, JMX), and what no Java thread accounts for (GC, JIT, VM).
     */
    record Split(long driver, long executor, long inserter, long otherJava, long vm) {
    }
}
