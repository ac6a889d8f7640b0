package io.groupkeeper.benchmarks.support;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a result was measured on, recorded next to every result file. */
public final class Machine {

    private Machine() {}

    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", Instant.now().toString());
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("memTotalGiB", memTotalGiB());
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put(
                "jvmArguments",
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        m.put("maxHeapMiB", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("loadAverageAtStart", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        return m;
    }

    /** The 1-minute load average now (or -1 where the OS does not say). */
    public static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static double memTotalGiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    return Math.round(kb / 1024.0 / 1024.0 * 10) / 10.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
