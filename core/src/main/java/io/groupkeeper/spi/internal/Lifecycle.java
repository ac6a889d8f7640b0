package io.groupkeeper.spi.internal;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The three-state lifecycle of a startable, closeable thing: LATENT → {@link #start()} → STARTED → {@link #close()} →
 * CLOSED, each step once (as Curator's recipes keep theirs); closing a latent one closes it too. Thread-safe: each
 * step is one compare-and-set, so of two threads only one starts and only one closes. Shared by core and the stores
 * (a member's own, richer lifecycle is core's {@code MemberState}).
 */
public final class Lifecycle {

    public enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final String what;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    /** {@code what} names the owner in errors: "{@code <what>} already started". */
    public Lifecycle(String what) {
        this.what = what;
    }

    /** LATENT → STARTED; throws {@link IllegalStateException} ("… already started", "… already closed") otherwise. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException(what + " already " + name(state.get()));
        }
    }

    /**
     * → CLOSED; returns the state it was in: {@link State#CLOSED} means it was closed already and there is nothing to
     * do, {@link State#LATENT} that it never started.
     */
    public State close() {
        return state.getAndSet(State.CLOSED);
    }

    public State state() {
        return state.get();
    }

    public boolean isStarted() {
        return state.get() == State.STARTED;
    }

    public boolean isClosed() {
        return state.get() == State.CLOSED;
    }

    /** Throws {@link IllegalStateException} ("{@code <what>} must be started (is latent)") unless STARTED. */
    public void requireStarted(String toDo) {
        State s = state.get();
        if (s != State.STARTED) {
            throw new IllegalStateException(what + " must be started " + toDo + " (is " + name(s) + ")");
        }
    }

    private static String name(State s) {
        return s.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return what + " " + name(state.get());
    }
}
