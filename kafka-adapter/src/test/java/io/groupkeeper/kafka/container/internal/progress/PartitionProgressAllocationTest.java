package io.groupkeeper.kafka.container.internal.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The cost of the default path ({@code PARTITION}, one record at a time, as the container's polling thread drives it)
 * counted, not timed: the bytes allocated per record over 100,000 records fetched in polls of 500 (append, dispatch,
 * complete; per poll the pause check and the commit's snapshot). A count holds on a noisy machine where a time does
 * not. The records themselves ({@link Fetched}) are made by the caller, outside the count; the least of three runs
 * counts, so that the JIT's state in the first does not.
 *
 * <p>The bounds are what this code measures, rounded up with room: 89 bytes per record through
 * {@link PartitionProgress#dispatch(int, long)} (its ticket and the list it returns), 42 through
 * {@link OwnedPartitions} over four partitions as the container calls it (the ticket). The tree- and hash-map progress
 * this replaced measured 494 bytes per record through the first (boxed offsets, map entries, an iterator and lists
 * per dispatch) and 911 through the second, by the list-returning dispatch the container called then (lists,
 * sublists and a {@code Dispatched} per record). The container's inline calls (parallelism 1) run records without a
 * ticket ({@link PartitionProgress#runnable()}, {@link OwnedPartitions#nextRunnable}): 8 bytes per record at most
 * through four partitions (it measures 2: the poll's pause check and commit snapshot, spread over its records).
 */
class PartitionProgressAllocationTest {

    private static final int RECORDS = 100_000;
    private static final int POLL = 500;
    /** Bytes per record through one partition's progress, at most. */
    static final long PROGRESS_BOUND = 128;
    /** Bytes per record through four partitions' progress, as the container dispatches, at most. */
    static final long OWNED_BOUND = 64;
    /** Bytes per record through four partitions' runs without tickets (the container's inline calls), at most. */
    static final long RUNS_BOUND = 8;

    private final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void onePartitionsProgressAllocatesAtMostItsBoundPerRecord() {
        List<List<Fetched<String>>> polls = polls(0);
        long least = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) {
            least = Math.min(least, throughProgress(polls));
        }
        assertThat(least)
                .as("bytes allocated per record through PartitionProgress")
                .isLessThanOrEqualTo(PROGRESS_BOUND);
    }

    @Test
    void fourPartitionsDispatchedAsTheContainerDoesAllocateAtMostTheirBoundPerRecord() {
        List<List<List<Fetched<String>>>> partitions = List.of(polls(0), polls(0), polls(0), polls(0));
        long least = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) {
            least = Math.min(least, throughOwned(partitions));
        }
        assertThat(least)
                .as("bytes allocated per record through OwnedPartitions")
                .isLessThanOrEqualTo(OWNED_BOUND);
    }

    @Test
    void fourPartitionsRunInlineWithoutTicketsAllocateAtMostTheirBoundPerRecord() {
        List<List<List<Fetched<String>>>> partitions = List.of(polls(0), polls(0), polls(0), polls(0));
        long least = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) {
            least = Math.min(least, throughRuns(partitions));
        }
        assertThat(least).as("bytes allocated per record through inline runs").isLessThanOrEqualTo(RUNS_BOUND);
    }

    private long allocated() {
        assertThat(mx.isThreadAllocatedMemorySupported())
                .as("this JVM counts a thread's allocations")
                .isTrue();
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx.getCurrentThreadAllocatedBytes();
    }

    private static List<List<Fetched<String>>> polls(long first) {
        List<List<Fetched<String>>> polls = new ArrayList<>();
        for (long from = first; from < first + RECORDS; from += POLL) {
            List<Fetched<String>> poll = new ArrayList<>(POLL);
            for (long o = from; o < from + POLL; o++) {
                poll.add(new Fetched<>(o, "k" + (o % 16), 100, "v"));
            }
            polls.add(poll);
        }
        return polls;
    }

    private long throughProgress(List<List<Fetched<String>>> polls) {
        PartitionProgress<String> p =
                new PartitionProgress<>(Ordering.PARTITION, ProgressLimits.DEFAULT, 3, OffsetProgress.at(0));
        long before = allocated();
        for (List<Fetched<String>> poll : polls) {
            p.append(poll);
            for (int i = 0; i < poll.size(); i++) {
                List<Ticket<String>> started = p.dispatch(1, 0);
                p.complete(started.get(0));
            }
            p.shouldPauseFetching();
            if (p.commitOwed()) {
                p.committed(p.snapshot());
            }
        }
        long bytes = allocated() - before;
        assertThat(p.lowWater()).isEqualTo(RECORDS);
        assertThat(p.heldRecords()).isZero();
        return bytes / RECORDS;
    }

    /** The container's inline round: one ticket at a time, started (here: completed) before the next dispatch. */
    private long throughOwned(List<List<List<Fetched<String>>>> partitions) {
        OwnedPartitions<Integer, String> owned = new OwnedPartitions<>(Ordering.PARTITION, ProgressLimits.DEFAULT);
        for (int tp = 0; tp < partitions.size(); tp++) {
            owned.assigned(tp, 3, OffsetProgress.at(0));
        }
        int[] startedPartition = new int[1];
        List<Ticket<String>> started = new ArrayList<>();
        BiConsumer<Integer, Ticket<String>> to = (tp, t) -> {
            startedPartition[0] = tp;
            started.add(t);
        };
        int records = 0;
        long before = allocated();
        for (int poll = 0; poll < partitions.get(0).size(); poll++) {
            for (int tp = 0; tp < partitions.size(); tp++) {
                List<Fetched<String>> fetched = partitions.get(tp).get(poll);
                owned.get(tp).orElseThrow().append(fetched);
                records += fetched.size();
            }
            while (owned.dispatch(1, 0, tp -> true, to) > 0) {
                owned.complete(startedPartition[0], started.get(0));
                started.clear();
            }
            owned.pauses();
            owned.committed(owned.owed());
        }
        long bytes = allocated() - before;
        for (int tp = 0; tp < partitions.size(); tp++) {
            assertThat(owned.get(tp).orElseThrow().lowWater()).isEqualTo(RECORDS);
        }
        return bytes / records;
    }

    /** The container's inline calls: runs of one partition's records in turn, no ticket (here: completed at once). */
    private long throughRuns(List<List<List<Fetched<String>>>> partitions) {
        OwnedPartitions<Integer, String> owned = new OwnedPartitions<>(Ordering.PARTITION, ProgressLimits.DEFAULT);
        for (int tp = 0; tp < partitions.size(); tp++) {
            owned.assigned(tp, 3, OffsetProgress.at(0));
        }
        java.util.function.Predicate<Integer> all = tp -> true;
        int records = 0;
        int ran = 0;
        long before = allocated();
        for (int poll = 0; poll < partitions.get(0).size(); poll++) {
            for (int tp = 0; tp < partitions.size(); tp++) {
                List<Fetched<String>> fetched = partitions.get(tp).get(poll);
                owned.get(tp).orElseThrow().append(fetched);
                records += fetched.size();
            }
            while (owned.nextRunnable(all) != null) {
                PartitionProgress<String> p = owned.runnableProgress();
                while (p.runnable() != null) {
                    p.completeRunnable();
                    ran++;
                }
            }
            owned.pauses();
            owned.committed(owned.owed());
        }
        long bytes = allocated() - before;
        assertThat(ran).isEqualTo(records);
        for (int tp = 0; tp < partitions.size(); tp++) {
            assertThat(owned.get(tp).orElseThrow().lowWater()).isEqualTo(RECORDS);
        }
        return bytes / records;
    }
}
