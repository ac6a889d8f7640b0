package io.groupkeeper.spi.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.StoreException;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;

/**
 * One participant in a group's leader election. Only the leader may publish, and publishing goes through the
 * election so the store can fence it: a participant that lost leadership (or its session) cannot publish.
 */
public interface LeaderElection extends AutoCloseable {

    void start();

    boolean isLeader();

    /**
     * Publishes generation {@code generation}: writes the target of every member in {@code changedTargets},
     * deletes the targets of {@code removedMembers}, and records the generation and leader. Fails with
     * {@link StoreException} if this participant is not the leader any more, or if the published assignment's
     * version is not {@code expectedVersion} (someone else published since it was read).
     *
     * @param staticMembers the members (of {@code changedTargets}) that are static, recorded in their target
     * @return the published assignment's new version, to present as {@code expectedVersion} next time
     */
    long publish(
            long expectedVersion,
            long generation,
            Map<String, ? extends Set<TopicPartition>> changedTargets,
            Set<String> removedMembers,
            SortedSet<String> staticMembers);

    @Override
    void close();
}
