package io.groupkeeper.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test advances it. */
public final class ManualClock extends Clock {

    private final AtomicLong millis;

    public ManualClock() {
        this(Instant.parse("2026-12-01T00:00:00Z"));
    }

    public ManualClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    /** Moves to {@code at} if that is later than now. */
    public void advanceTo(Instant at) {
        millis.accumulateAndGet(at.toEpochMilli(), Math::max);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
