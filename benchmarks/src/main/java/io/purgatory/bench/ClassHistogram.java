package io.purgatory.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;

/**
 * The live-object histogram ({@code jcmd GC.class_histogram}) through the DiagnosticCommand MBean:
 * used to explain what a pending operation costs, class by class.
 */
final class ClassHistogram {

    /** Instances and bytes of one class. */
    record Entry(long instances, long bytes) {
    }

    private final Map<String, Entry> byClass;

    private ClassHistogram(Map<String, Entry> byClass) {
        this.byClass = byClass;
    }

    /** Takes a histogram of live objects (forces a full GC). Empty if the MBean is unavailable. */
    static ClassHistogram take() {
        Map<String, Entry> map = new HashMap<>();
        try {
            ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
            String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(name, "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            for (String line : text.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].endsWith(":")) {
                    map.put(f[3], new Entry(Long.parseLong(f[1]), Long.parseLong(f[2])));
                }
            }
        } catch (Exception | LinkageError unavailable) {
            // not a HotSpot JVM: no breakdown
        }
        return new ClassHistogram(map);
    }

    /**
     * The classes that grew by at least n/2 instances from {@code before} to this histogram, as
     * markdown lines "bytes per operation, instances per operation, class", largest first.
     */
    List<String> perOperationSince(ClassHistogram before, long n) {
        List<Map.Entry<String, Entry>> grown = new ArrayList<>();
        byClass.forEach((cls, e) -> {
            Entry b = before.byClass.getOrDefault(cls, new Entry(0, 0));
            long instances = e.instances() - b.instances();
            if (instances >= n / 2) {
                grown.add(Map.entry(cls, new Entry(instances, e.bytes() - b.bytes())));
            }
        });
        grown.sort((x, y) -> Long.compare(y.getValue().bytes(), x.getValue().bytes()));
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Entry> g : grown) {
            lines.add(String.format(Locale.ROOT, "%.1f B/op (%.2f objects/op) %s",
                    (double) g.getValue().bytes() / n, (double) g.getValue().instances() / n, g.getKey()));
        }
        return lines;
    }
}
