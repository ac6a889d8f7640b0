package io.groupkeeper.internal;

import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.spi.ConnectionEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member's connection state ({@link ConnectionPhase}) and its transitions, each logged with the member's context;
 * an illegal one is a bug, logged and refused. Events are heard on the store's thread ({@link #heard}): a doubt or a
 * loss takes effect at once, so processing stops before the session can end (I7). A reconnection takes effect on the
 * member's lane ({@link #resume}) and only if no later event came meanwhile, so the lane never resumes on a connection
 * that is already gone again. A closing member asks for the connection's {@link #verdict}. Thread-safe.
 */
final class ConnectionTracker {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionTracker.class);

    private final Clock clock;
    private final LogContext log;
    private ConnectionPhase phase = ConnectionPhase.CONNECTED;
    /**
     * When the doubt began ({@link #clock}'s millis), or when the latest connection heard since then was lost again
     * (that connection proved the session alive, so its timeout restarted then); meaningful while in doubt.
     */
    private long since;
    /** Counts events heard, so a reconnection resumes only if it is the latest. */
    private long events;
    /** The latest event heard (the store's view, which the lane's phase follows). */
    private ConnectionEvent last = ConnectionEvent.CONNECTED;

    private final List<CompletableFuture<Boolean>> verdicts = new ArrayList<>();
    private final List<CompletableFuture<Boolean>> reconnections = new ArrayList<>();

    ConnectionTracker(Clock clock, LogContext log) {
        this.clock = clock;
        this.log = log;
    }

    /**
     * On the store's thread: records {@code event} and returns its number (for {@link #resume}). SUSPENDED and LOST
     * take effect now; a doubt heard while the session is already given up adds nothing.
     */
    long heard(ConnectionEvent event) {
        List<CompletableFuture<Boolean>> decided;
        long n;
        synchronized (this) {
            n = ++events;
            boolean wasConnected = last.isConnected();
            last = event;
            if (event == ConnectionEvent.SUSPENDED && phase == ConnectionPhase.CONNECTED) {
                move(ConnectionPhase.SUSPENDED, event);
            } else if (event == ConnectionEvent.SUSPENDED && wasConnected && phase.inDoubt()) {
                // Connected and lost again before the lane resumed: still in doubt, but the session's timeout counts
                // from now (a leave that counted from the first loss gave up while the session lived on).
                since = clock.millis();
            } else if (event == ConnectionEvent.LOST && phase != ConnectionPhase.LOST) {
                move(ConnectionPhase.LOST, event);
            }
            if (!event.isConnected() && event != ConnectionEvent.LOST) {
                return n;
            }
            decided = new ArrayList<>(verdicts);
            verdicts.clear();
            if (event.isConnected()) {
                decided.addAll(reconnections);
                reconnections.clear();
            }
        }
        decided.forEach(v -> v.complete(event.isConnected()));
        return n;
    }

    /**
     * On the lane: the reconnection heard as event {@code n} takes effect, unless a later event was heard (it decides).
     * Returns whether the member is connected again by it.
     */
    synchronized boolean resume(long n, ConnectionEvent event) {
        if (n != events) {
            return false;
        }
        if (!event.isConnected()) {
            return refuse(event, ConnectionPhase.CONNECTED);
        }
        if (phase == ConnectionPhase.CONNECTED) {
            return true; // a reconnection without a doubt the member acted on (e.g. heard before it listened)
        }
        return move(ConnectionPhase.CONNECTED, event);
    }

    synchronized ConnectionPhase phase() {
        return phase;
    }

    /** Whether the connection is in doubt (suspended or lost) for the member. */
    synchronized boolean inDoubt() {
        return phase.inDoubt();
    }

    /** How long the doubt has lasted, in ms (0 when connected). */
    synchronized long doubtMillis() {
        return phase.inDoubt() ? Math.max(0, clock.millis() - since) : 0;
    }

    /**
     * The connection's verdict: true once the store is connected (the latest event is a connection), false once the
     * session is given up (LOST); pending until one of them is heard.
     */
    CompletableFuture<Boolean> verdict() {
        synchronized (this) {
            if (last.isConnected() || last == ConnectionEvent.LOST) {
                return CompletableFuture.completedFuture(last.isConnected());
            }
            CompletableFuture<Boolean> v = new CompletableFuture<>();
            verdicts.add(v);
            return v;
        }
    }

    /** Completes (true) once the store is connected: now, or at the next connection heard (whichever session). */
    synchronized CompletableFuture<Boolean> reconnection() {
        if (last.isConnected()) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> r = new CompletableFuture<>();
        reconnections.add(r);
        return r;
    }

    private boolean move(ConnectionPhase to, ConnectionEvent cause) {
        if (!phase.next().contains(to)) {
            return refuse(cause, to);
        }
        ConnectionPhase from = phase;
        phase = to;
        if (to.inDoubt() && !from.inDoubt()) {
            since = clock.millis();
        }
        log.withMdc(() -> {
            if (to == ConnectionPhase.CONNECTED) {
                LOG.info(
                        "connection {} -> {} ({}, after {} ms in doubt)",
                        from,
                        to,
                        cause.name().toLowerCase(),
                        clock.millis() - since);
            } else {
                LOG.warn("connection {} -> {} ({})", from, to, cause.name().toLowerCase());
            }
        });
        return true;
    }

    private boolean refuse(ConnectionEvent cause, ConnectionPhase to) {
        ConnectionPhase from = phase;
        log.withMdc(() -> LOG.error(
                "bug: no connection transition {} -> {} (on {}); refused",
                from,
                to,
                cause.name().toLowerCase()));
        return false;
    }

    @Override
    public synchronized String toString() {
        return phase + (phase.inDoubt() ? " for " + (clock.millis() - since) + " ms" : "");
    }
}
