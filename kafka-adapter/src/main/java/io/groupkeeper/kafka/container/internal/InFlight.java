package io.groupkeeper.kafka.container.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.apache.kafka.common.TopicPartition;

/**
 * The handler call a worker is in, for the watchdog. Written by the worker at every call as cheaply as possible — two
 * plain writes and two release-stores of a counter, no clock read and no full fence (this is on the path of every
 * record) — and sampled by the watchdog's thread, which keeps the time itself: {@code state} is odd while a call runs
 * and moves on with every call, so a sample that finds the same odd value as the previous one means the same call is
 * still running.
 */
final class InFlight {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(InFlight.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Thread thread;
    /** Odd while in a call; +1 at every begin and every end. Written by the worker only. */
    @SuppressWarnings("unused") // through STATE
    private long state;
    /** Where the current call started (plain: published by the release-store of {@link #state}). */
    private TopicPartition partition;

    private long offset;
    /** The thread's {@link CurrentRecord}, kept for its calls (the thread's own: not read by the watchdog). */
    private CurrentRecord currentRecord;

    // Watchdog thread: the sample of state, and when it was first seen.
    long sampledState;
    long sampledSince;
    /** The state of the call last reported (each call is reported once), and when the watchdog first saw it. */
    volatile long reportedState = -1;

    volatile long reportedSince;

    InFlight(Thread thread) {
        this.thread = thread;
    }

    void begin(TopicPartition partition, long offset) {
        // Keeps the previous end()'s store of state ahead of these plain stores (a release store alone does not order
        // the stores after it), so a reader that sees this call's partition also sees that the last call ended. A
        // compiler barrier only on x86.
        VarHandle.storeStoreFence();
        this.partition = partition;
        this.offset = offset;
        STATE.setRelease(this, (long) STATE.getOpaque(this) + 1);
    }

    /** Ends the call; returns its state if the watchdog reported it (so the worker can log its end), else -1. */
    long end() {
        long s = (long) STATE.getOpaque(this);
        STATE.setRelease(this, s + 1);
        return reportedState == s ? s : -1;
    }

    /** The {@link CurrentRecord} of this slot's thread; call on that thread only. */
    CurrentRecord currentRecord() {
        CurrentRecord c = currentRecord;
        if (c == null) {
            c = CurrentRecord.ofThread();
            currentRecord = c;
        }
        return c;
    }

    long state() {
        return (long) STATE.getAcquire(this);
    }

    TopicPartition partition() {
        return partition;
    }

    long offset() {
        return offset;
    }
}
