package io.purgatory.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;

/** The machine and JVM a run happened on, for the report's header. */
final class MachineInfo {

    private MachineInfo() {
    }

    static String describe() {
        Runtime rt = Runtime.getRuntime();
        String gcs = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        String flags = String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
        return String.format(Locale.ROOT, "%d CPUs (%s), %s RAM; %s %s; max heap %,d MB; GC: %s; JVM flags: %s",
                rt.availableProcessors(), cpuModel(), memTotal(), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), rt.maxMemory() >> 20, gcs,
                flags.isEmpty() ? "(none)" : flags);
    }

    /** The 1-minute load average, or "?" (the machine is shared: a load above the CPU count means noise). */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException unavailable) {
            return "?";
        }
    }

    private static String cpuModel() {
        return procField("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch"));
    }

    private static String memTotal() {
        return procField("/proc/meminfo", "MemTotal")
                .map(v -> String.format(Locale.ROOT, "%.1f GiB",
                        Long.parseLong(v.replace("kB", "").trim()) / 1048576.0))
                .orElse("?");
    }

    private static java.util.Optional<String> procField(String file, String field) {
        try {
            return Files.readAllLines(Path.of(file)).stream()
                    .filter(l -> l.startsWith(field))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException | RuntimeException unavailable) {
            return java.util.Optional.empty();
        }
    }
}
