package io.groupkeeper.assignor;

/**
 * Decides which member owns which partition. Implementations are pure functions of their input: no I/O, no clock,
 * no randomness, so that every leader computes the same answer from the same state and tests are deterministic.
 *
 * <p>The rebalancer calls {@link #assign} with every live member's subscription, the partition count of every
 * subscribed topic and the current target assignment (for stickiness). The result must:
 * <ul>
 *   <li>name only members from the input (a member may map to an empty set, or be absent);</li>
 *   <li>give each partition of each topic in {@link AssignmentInput#partitionCounts()} to exactly one member that
 *   subscribes to that topic, when at least one does, and to nobody otherwise;</li>
 *   <li>give no partition that does not exist.</li>
 * </ul>
 */
public interface PartitionAssignor {

    /** The name stored in the group node and used in configuration, e.g. {@code "sticky"}. */
    String name();

    /** Computes the target assignment. */
    Assignment assign(AssignmentInput input);
}
