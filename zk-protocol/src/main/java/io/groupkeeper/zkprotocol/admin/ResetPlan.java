package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an offset reset, import or migration does (or did) to a group, partition by partition: the committed offset
 * read when planning, the requested target, the target after clamping into the log, and the version of the offset
 * node the write is conditioned on. A plan is written in one ZooKeeper transaction, completely or not at all.
 *
 * @param group          the group
 * @param operation      {@code reset}, {@code import} or {@code migrate ...}
 * @param spec           the spec, e.g. {@code --to-offset 42}
 * @param createsGroup   whether the group does not exist yet and is created by the same transaction
 * @param entries        one per selected partition, sorted
 * @param notes          things the operator should know (a resolved duration, why bounds are missing, …)
 * @param logBounds      where the log bounds came from, or empty when they were not available
 * @param executed       whether this plan has been written
 * @param attempts       how many plans were made before one was written (concurrent commits force a re-plan)
 * @param createsFolders folders the transaction creates because they do not exist yet (e.g. the
 *                       {@code offsets/<topic>} folder of a topic the group never committed), as paths below the namespace
 */
public record ResetPlan(
        String group,
        String operation,
        String spec,
        boolean createsGroup,
        List<Entry> entries,
        List<String> notes,
        Optional<String> logBounds,
        boolean executed,
        int attempts,
        SortedSet<String> createsFolders) {

    /** How a target was corrected to fit the log. */
    public enum Clamp {
        NONE,
        LOG_START,
        LOG_END
    }

    /**
     * One partition of the plan.
     *
     * @param partition       the partition
     * @param current         the committed offset when planned (empty: none)
     * @param requested       the target the spec asked for (empty: the partition is skipped, see {@code note})
     * @param target          what is written: {@code requested} clamped into the log (empty: skipped)
     * @param clamp           whether and how {@code requested} was clamped
     * @param logStart        the log start, if known
     * @param logEnd          the log end, if known
     * @param owner           the live owner of the partition, if any (it adopts the new offset)
     * @param note            a remark for the operator, or ""
     * @param expectedVersion the offset node's version the write is conditioned on; -1: the node is created
     */
    public record Entry(
            TopicPartition partition,
            OptionalLong current,
            OptionalLong requested,
            OptionalLong target,
            Clamp clamp,
            OptionalLong logStart,
            OptionalLong logEnd,
            Optional<String> owner,
            String note,
            int expectedVersion) {

        public Entry {
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(note, "note");
        }

        /** Whether this entry writes anything. */
        public boolean writes() {
            return target.isPresent();
        }
    }

    public ResetPlan {
        entries = List.copyOf(entries);
        notes = List.copyOf(notes);
        createsFolders = Collections.unmodifiableSortedSet(new TreeSet<>(createsFolders));
    }

    /** The entries that write an offset. */
    public List<Entry> writes() {
        return entries.stream().filter(Entry::writes).toList();
    }

    ResetPlan asExecuted(int attempts) {
        return new ResetPlan(
                group, operation, spec, createsGroup, entries, notes, logBounds, true, attempts, createsFolders);
    }
}
