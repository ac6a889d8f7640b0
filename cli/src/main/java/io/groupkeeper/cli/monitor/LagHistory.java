package io.groupkeeper.cli.monitor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A group's lag over the last {@code span} (one hour by default), one point per sample: total lag in records and the
 * largest lag in seconds of its partitions. A ring: points older than the span fall out. Thread-safe.
 */
final class LagHistory {

    /** One sample; {@code lagSeconds} is NaN when unknown. */
    record Point(Instant at, long lagRecords, double lagSeconds) {}

    private final Duration span;
    private final int capacity;
    private final ArrayDeque<Point> points = new ArrayDeque<>();

    LagHistory(Duration span, Duration interval) {
        this.span = span;
        this.capacity = (int) Math.min(100_000, Math.max(2, span.toMillis() / Math.max(1, interval.toMillis()) + 1));
    }

    synchronized void add(Point p) {
        points.addLast(p);
        Instant oldest = p.at().minus(span);
        while (points.size() > capacity || points.peekFirst().at().isBefore(oldest)) {
            points.removeFirst();
        }
    }

    synchronized List<Point> points() {
        return List.copyOf(points);
    }

    Duration span() {
        return span;
    }
}
