package io.groupkeeper.internal;

import io.groupkeeper.log.internal.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's state ({@link MemberState}) and its transitions: each one logged (DEBUG, with the member's group and id
 * in the MDC), an illegal one refused with {@link IllegalStateException}. A transition that a close overtook (the
 * lane's join moving on while a user thread closes the member) is not illegal: {@link #advance} says it did not
 * happen. Thread-safe.
 */
final class MemberLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(MemberLifecycle.class);

    private final LogContext log;
    private volatile MemberState state = MemberState.LATENT;
    /**
     * While LEAVING: how far the join had got, which the leave must undo; a join under way when the close came may
     * still move it on ({@link #advance}).
     */
    private MemberState leftFrom = MemberState.LATENT;

    MemberLifecycle(LogContext log) {
        this.log = log;
    }

    MemberState state() {
        return state;
    }

    boolean isActive() {
        return state.isActive();
    }

    /**
     * The member holds its id in its keeper: it is {@link MemberState#holdsId registered or joined}, or leaving after
     * its join took the id.
     */
    synchronized boolean holdsId() {
        return state.holdsId() || state == MemberState.LEAVING && leftFrom.holdsId();
    }

    /**
     * {@code from} → {@code to} if the member is in {@code from}; false, changing nothing, if it is elsewhere because
     * a close came first (it is leaving or closed). Throws {@link IllegalStateException} for a transition that is not
     * declared, or when the member is in another state that no close explains (a bug).
     */
    synchronized boolean advance(MemberState from, MemberState to) {
        if (!from.next().contains(to)) {
            throw refused(from, to);
        }
        if (state != from) {
            if (state == MemberState.LEAVING && leftFrom == from) {
                // The join under way when the close came went on: the leave has that much more to undo.
                leftFrom = to;
                log.withMdc(() -> LOG.debug("member {} (its join reached {} meanwhile)", state, to));
                return false;
            }
            if (state == MemberState.LEAVING || state == MemberState.CLOSED) {
                return false;
            }
            throw refused(state, to);
        }
        move(to);
        return true;
    }

    /** To {@code to} from wherever the member is; throws {@link IllegalStateException} if that is not declared. */
    synchronized MemberState moveTo(MemberState to) {
        MemberState from = state;
        if (!from.next().contains(to)) {
            throw refused(from, to);
        }
        move(to);
        return from;
    }

    private void move(MemberState to) {
        MemberState from = state;
        if (to == MemberState.LEAVING) {
            leftFrom = from;
        }
        state = to;
        log.withMdc(() -> LOG.debug("member {} -> {}", from, to));
    }

    private IllegalStateException refused(MemberState from, MemberState to) {
        return new IllegalStateException("member " + log.member() + ": no transition " + from + " -> " + to);
    }

    @Override
    public String toString() {
        return state.name();
    }
}
