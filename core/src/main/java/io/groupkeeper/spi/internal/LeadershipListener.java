package io.groupkeeper.spi.internal;

/** Hears a participant gain or lose the leadership of a group. Called on a store thread: hand off, do not block. */
public interface LeadershipListener {

    void isLeader();

    void notLeader();
}
