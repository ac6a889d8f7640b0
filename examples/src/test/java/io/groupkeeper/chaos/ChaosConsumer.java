package io.groupkeeper.chaos;

import java.time.Duration;
import java.util.Optional;
import org.apache.zookeeper.ZooKeeper;

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

    /** Session expiry; unsupported for processes. */
    void expireSession();

    /** User code blocks for that long on its next record; unsupported for processes. */
    void stall(long millis);

    boolean supportsSessionFaults();

    /** Whether it is the group's elected leader now. */
    boolean isLeader();

    /** Its ZooKeeper handle, when in this JVM (to find the server it is connected to). */
    Optional<ZooKeeper> zooKeeper();

    void awaitDone(Duration timeout);

    /** What made its polling thread or process fail, if anything. */
    Optional<String> failure();
}
