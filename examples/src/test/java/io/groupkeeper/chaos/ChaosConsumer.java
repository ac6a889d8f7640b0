package io.groupkeeper.chaos;

import java.time.Duration;
import java.util.Optional;

/** A member of a chaos run, in this JVM ({@link ChaosMember}) or a separate process ({@link ConsumerProcess}). */
interface ChaosConsumer {

    String group();

    /** The member id, as recorded in the ledger. */
    String name();

    /** Graceful leave (asynchronous): finish the batch, final commit, release, exit. */
    void leave();

    /** Crash without any goodbye; returns the instant its processing stopped (every ledger entry of it is earlier). */
    long crash(boolean abandonSession);

    /** Frees what a crash left behind; no effect on the group. */
    void cleanUp();

    /**
     * Cuts it off the ensemble for {@code millis} (a network partition: the client notices through its read timeout,
     * the servers expire its session after the session timeout), then heals; unsupported for processes.
     */
    void partition(long millis);

    /** Whether it is cut off right now. */
    boolean isPartitioned();

    /** User code blocks for that long on its next record; unsupported for processes. */
    void stall(long millis);

    boolean supportsSessionFaults();

    /** Whether it is the group's elected leader now. */
    boolean isLeader();

    /** The client port of the ensemble server it is connected to now, when known (in this JVM). */
    Optional<Integer> zkServerPort();

    void awaitDone(Duration timeout);

    /** What made its polling thread or process fail, if anything. */
    Optional<String> failure();

    /** Last resort when a run is torn down after a failure: no process may outlive the test. */
    default void destroy() {}
}
