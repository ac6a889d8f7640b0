package io.groupkeeper.zkprotocol.admin;

/** A group's state as seen from ZooKeeper. */
public enum GroupState {
    /** No live member; offsets (if any) wait for the group to come back. */
    EMPTY,
    /** Every live member follows the current generation and owns exactly its target. */
    STABLE,
    /** A generation is being applied: some member has no current target, or some targeted partition is not (yet) owned by its target member. */
    REBALANCING
}
