package io.groupkeeper.benchmarks.support;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Summary of a list of samples: count, p50, p95, max, mean. Percentiles by the nearest-rank method on the sorted
 * samples (p50 of 10 samples is the 5th smallest), so every figure reported is a measured value.
 */
public record Stats(int n, double p50, double p95, double max, double mean, double min) {

    public static final Stats EMPTY = new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    public static Stats of(Collection<? extends Number> samples) {
        if (samples.isEmpty()) {
            return EMPTY;
        }
        List<Double> sorted = new ArrayList<>(samples.size());
        samples.forEach(s -> sorted.add(s.doubleValue()));
        Collections.sort(sorted);
        double sum = 0;
        for (double d : sorted) {
            sum += d;
        }
        return new Stats(
                sorted.size(),
                rank(sorted, 0.50),
                rank(sorted, 0.95),
                sorted.get(sorted.size() - 1),
                sum / sorted.size(),
                sorted.get(0));
    }

    /** Nearest rank: the smallest sample with at least {@code q} of the samples at or below it. */
    static double rank(List<Double> sorted, double q) {
        int index = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    public boolean isEmpty() {
        return n == 0;
    }

    /** {@code p50 / p95 / max} in ms with a sensible precision, or {@code n/a}. */
    public String summary() {
        return isEmpty() ? "n/a" : Fmt.ms(p50) + " / " + Fmt.ms(p95) + " / " + Fmt.ms(max);
    }
}
