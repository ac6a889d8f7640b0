package io.groupkeeper.benchmarks.support;

import java.util.Locale;

/** Number formatting for tables: milliseconds with precision that fits their size. */
public final class Fmt {

    private Fmt() {}

    public static String ms(double ms) {
        if (Double.isNaN(ms)) {
            return "n/a";
        }
        if (ms >= 100) {
            return String.format(Locale.ROOT, "%.0f", ms);
        }
        if (ms >= 10) {
            return String.format(Locale.ROOT, "%.1f", ms);
        }
        return String.format(Locale.ROOT, "%.2f", ms);
    }

    public static String ratio(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return "n/a";
        }
        return x >= 10 ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.1f", x);
    }

    public static double nanosToMs(long nanos) {
        return nanos / 1_000_000.0;
    }
}
