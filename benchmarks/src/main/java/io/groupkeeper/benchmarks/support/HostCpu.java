package io.groupkeeper.benchmarks.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The whole machine's CPU time by kind, read from Linux's {@code /proc/stat} (in clock ticks, summed over cores). On a
 * virtual machine the figures of one code move by 2-4× between hours; the process's own CPU share cannot say why,
 * this says much of it: {@code steal} is time the hypervisor gave another guest while this one was ready to run,
 * {@code iowait} idle time with a disk write outstanding (ZooKeeper's fsync). Ticks are 10 ms, so only windows of
 * seconds (a subject, a run, a JMH trial) are worth a share, not a single rebalance.
 *
 * @param busy   user, nice, system, irq and softirq ticks
 * @param idle   idle ticks
 * @param iowait idle ticks with I/O outstanding
 * @param steal  ticks taken by the hypervisor
 */
public record HostCpu(long busy, long idle, long iowait, long steal) {

    private static final Path PROC_STAT = Path.of("/proc/stat");

    /**
     * Steal above which a window's figures are not comparable with a quiet one's: this host's steal averages 0.7 %
     * since boot, and the windows that ran the same code 2-4× slower had 2.3-23 % (RESULTS.md, "Noise").
     */
    public static final double NOISY_STEAL_PCT = 2.0;

    private static final String NOISY_WARNING = String.format(
            Locale.ROOT,
            " (noisy: steal above %.0f %%, compare only with figures of the same window)",
            NOISY_STEAL_PCT);

    /** Now; all zero where there is no {@code /proc/stat} (then every {@link Share} is unknown). */
    public static HostCpu now() {
        try {
            List<String> lines = Files.readAllLines(PROC_STAT);
            return lines.isEmpty() ? unknown() : parse(lines.get(0));
        } catch (IOException | RuntimeException e) {
            return unknown();
        }
    }

    /** The aggregate {@code cpu} line: {@code cpu user nice system idle iowait irq softirq steal [guest guest_nice]}. */
    static HostCpu parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 9 || !f[0].equals("cpu")) {
            throw new IllegalArgumentException("not the aggregate cpu line of /proc/stat: " + line);
        }
        long[] v = new long[8];
        for (int i = 0; i < 8; i++) {
            v[i] = Long.parseLong(f[i + 1]);
        }
        // guest and guest_nice are already counted in user and nice.
        return new HostCpu(v[0] + v[1] + v[2] + v[5] + v[6], v[3], v[4], v[7]);
    }

    private static HostCpu unknown() {
        return new HostCpu(0, 0, 0, 0);
    }

    private long total() {
        return busy + idle + iowait + steal;
    }

    /** Each kind's share of all cores' time between {@code earlier} and this. */
    public Share since(HostCpu earlier) {
        long total = total() - earlier.total();
        if (total <= 0) {
            return new Share(Double.NaN, Double.NaN, Double.NaN);
        }
        return new Share(
                100.0 * (steal - earlier.steal) / total,
                100.0 * (iowait - earlier.iowait) / total,
                100.0 * (busy - earlier.busy) / total);
    }

    /** Shares in percent of all cores' time over a window; NaN where unknown. */
    public record Share(double stealPct, double iowaitPct, double busyPct) {

        /**
         * Whether the hypervisor took more than {@link #NOISY_STEAL_PCT}, judged on the share as printed (one decimal),
         * so that a line never reads "steal 2.0 %" and noisy; false where unknown.
         */
        public boolean noisy() {
            return tenths(stealPct) > NOISY_STEAL_PCT;
        }

        /** {@code steal 1.2 %, iowait 0.1 %, busy 61 %}, a warning after it when {@link #noisy()}, or unknown. */
        public String describe() {
            if (Double.isNaN(stealPct)) {
                return "unknown (no /proc/stat)";
            }
            String shares = String.format(
                    Locale.ROOT, "steal %.1f %%, iowait %.1f %%, busy %.0f %%", tenths(stealPct), iowaitPct, busyPct);
            return noisy() ? shares + NOISY_WARNING : shares;
        }

        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("stealPct", round(stealPct));
            m.put("iowaitPct", round(iowaitPct));
            m.put("busyPct", round(busyPct));
            m.put("noisy", noisy());
            return m;
        }

        private static Object round(double v) {
            return Double.isNaN(v) ? null : tenths(v);
        }

        private static double tenths(double v) {
            return Math.round(v * 10) / 10.0;
        }
    }
}
