package io.groupkeeper.testkit.internal;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's ordered event queue: watch notifications and connection events run one at a time, in the order they
 * were queued, on the given executor. Each event is one task handed to the executor (the next one is handed over only
 * when the previous one has run), so a simulating executor can interleave the lanes of several clients event by event
 * while each lane keeps its order, as ZooKeeper's one event thread per client does.
 *
 * <p>{@link #add} only queues (callers may hold the ensemble's lock); {@link #kick} hands the head to the executor and
 * must be called without locks held, since a direct executor runs the event at once.
 */
public final class EventLane {

    private static final Logger LOG = LoggerFactory.getLogger(EventLane.class);

    private final Executor executor;
    private final Queue<Runnable> queue = new ArrayDeque<>();
    private boolean handedOver;

    public EventLane(Executor executor) {
        this.executor = executor;
    }

    public synchronized void add(Runnable event) {
        queue.add(event);
    }

    /** Drops everything queued and not yet run (a closed client hears nothing more). */
    public synchronized void clear() {
        queue.clear();
    }

    public void kick() {
        synchronized (this) {
            if (handedOver || queue.isEmpty()) {
                return;
            }
            handedOver = true;
        }
        executor.execute(this::runOne);
    }

    private void runOne() {
        Runnable next;
        synchronized (this) {
            next = queue.poll();
            if (next == null) {
                handedOver = false;
                return;
            }
        }
        try {
            next.run();
        } catch (RuntimeException e) {
            LOG.error("event handler failed", e);
        } finally {
            synchronized (this) {
                handedOver = false;
            }
            kick();
        }
    }
}
