package io.groupkeeper.benchmarks.rack;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.AssignmentInput;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.assignor.StickyAssignor;
import io.groupkeeper.benchmarks.support.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The share of partitions read from a replica in the owner's rack, with and without rack awareness, on the sticky
 * assignor with realistic replica layouts: three racks (az-a, az-b, az-c), one broker per rack (broker.rack), six
 * members (two per rack, {@code client.rack}), and topics of replication 1 (leaders round the brokers, and skewed:
 * half the partitions on one broker), 2 and 3. Each layout is run as a group forms (members join one at a time, every
 * step fed the previous target, as the leader does), then after one member leaves and after it returns; a final
 * line times the assignor at 1,000 members x 10,000 partitions with and without racks.
 *
 * <p>A model of the leader's input, not a broker: the embedded module runs one KRaft node, so a three-rack cluster is
 * modelled here with exactly what {@code KafkaTopicMetadata.partitionRacks} would hand the assignor.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.groupkeeper.benchmarks.rack.RackShareMain
 * </pre>
 */
public final class RackShareMain {

    private static final String[] RACKS = {"az-a", "az-b", "az-c"};
    private static final StickyAssignor STICKY = new StickyAssignor();

    private RackShareMain() {}

    /** Replica racks of {@code partitions} partitions: partition p's replicas on brokers leader(p), leader(p)+1, .... */
    private static PartitionRacks layout(String topic, int partitions, int replication, boolean skewed) {
        Map<TopicPartition, Set<String>> map = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            // skewed: every other partition led by broker 0 (az-a), the rest round the three
            int leader = skewed && p % 2 == 0 ? 0 : p % RACKS.length;
            Set<String> racks = new TreeSet<>();
            for (int r = 0; r < replication; r++) {
                racks.add(RACKS[(leader + r) % RACKS.length]);
            }
            map.put(new TopicPartition(topic, p), racks);
        }
        return PartitionRacks.of(map);
    }

    private static MemberSubscription member(int i, String topic, boolean withRack) {
        // m0 az-a, m1 az-b, m2 az-c, m3 az-a, ...: ids sort across racks
        MemberSubscription s = new MemberSubscription("m" + i, new TreeSet<>(Set.of(topic)), Optional.empty());
        return withRack ? s.withRack(RACKS[i % RACKS.length]) : s;
    }

    /** Same-rack share of an assignment, and the moves it took. */
    private record Outcome(int local, int total, int moves) {
        double share() {
            return total == 0 ? 0 : 100.0 * local / total;
        }
    }

    private static int local(Assignment a, Map<String, MemberSubscription> members, PartitionRacks racks) {
        int local = 0;
        for (Map.Entry<String, SortedSet<TopicPartition>> e : a.byMember().entrySet()) {
            String rack = RACKS[Integer.parseInt(e.getKey().substring(1)) % RACKS.length]; // the member's real rack
            for (TopicPartition tp : e.getValue()) {
                if (racks.isLocal(tp, rack)) {
                    local++;
                }
            }
        }
        return local;
    }

    private static int moves(Assignment before, Assignment after) {
        int moves = 0;
        for (Map.Entry<String, SortedSet<TopicPartition>> e : before.byMember().entrySet()) {
            for (TopicPartition tp : e.getValue()) {
                if (after.byMember().containsKey(e.getKey())
                        && !after.partitionsOf(e.getKey()).contains(tp)) {
                    moves++;
                }
            }
        }
        return moves;
    }

    /** Members join one by one, then m1 leaves, then m1 returns; outcome of each phase's final step. */
    private static List<Outcome> scenario(
            String topic, int partitions, PartitionRacks racks, int members, boolean aware) {
        PartitionRacks given = aware ? racks : PartitionRacks.empty();
        Map<String, MemberSubscription> group = new TreeMap<>();
        Assignment current = Assignment.empty();
        int movesJoin = 0;
        for (int i = 0; i < members; i++) {
            group.put("m" + i, member(i, topic, aware));
            Assignment next = STICKY.assign(AssignmentInput.of(group, Map.of(topic, partitions), current, given));
            movesJoin += moves(current, next);
            current = next;
        }
        List<Outcome> out = new ArrayList<>();
        out.add(new Outcome(local(current, group, racks), partitions, movesJoin));
        group.remove("m1");
        Assignment left = STICKY.assign(AssignmentInput.of(group, Map.of(topic, partitions), current, given));
        out.add(new Outcome(local(left, group, racks), partitions, moves(current, left)));
        group.put("m1", member(1, topic, aware));
        Assignment back = STICKY.assign(AssignmentInput.of(group, Map.of(topic, partitions), left, given));
        out.add(new Outcome(local(back, group, racks), partitions, moves(left, back)));
        return out;
    }

    public static void main(String[] args) {
        System.out.println("machine: " + Machine.describe());
        System.out.println(
                "3 racks (az-a, az-b, az-c), one broker per rack, 6 members (two per rack), sticky assignor");
        System.out.println();
        System.out.printf(
                "%-34s %-10s %-26s %-26s %-26s%n",
                "layout", "racks", "formed (6 joins, moves)", "m1 left (moves)", "m1 back (moves)");
        int partitions = 24;
        Object[][] layouts = {
            {"replication 1, leaders round-robin", 1, false},
            {"replication 1, half on az-a", 1, true},
            {"replication 2, leaders round-robin", 2, false},
            {"replication 2, half led by az-a", 2, true},
            {"replication 3", 3, false},
        };
        for (Object[] l : layouts) {
            PartitionRacks racks = layout("t", partitions, (Integer) l[1], (Boolean) l[2]);
            for (boolean aware : new boolean[] {false, true}) {
                List<Outcome> o = scenario("t", partitions, racks, 6, aware);
                System.out.printf(
                        "%-34s %-10s %-26s %-26s %-26s%n",
                        l[0], aware ? "aware" : "blind", cell(o.get(0)), cell(o.get(1)), cell(o.get(2)));
            }
        }
        System.out.println();
        scale();
    }

    private static String cell(Outcome o) {
        return String.format("%5.1f %% (%d/%d, %d)", o.share(), o.local(), o.total(), o.moves());
    }

    /** Compute time at 1,000 members x 10,000 partitions (replication 1 round three racks), a fresh group and one join. */
    private static void scale() {
        int members = 1_000;
        int partitions = 10_000;
        PartitionRacks racks = layout("big", partitions, 1, false);
        for (boolean aware : new boolean[] {false, true, false, true, false, true}) {
            Map<String, MemberSubscription> group = new TreeMap<>();
            for (int i = 0; i < members; i++) {
                group.put("m" + i, member(i, "big", aware));
            }
            PartitionRacks given = aware ? racks : PartitionRacks.empty();
            long t0 = System.nanoTime();
            Assignment fresh =
                    STICKY.assign(AssignmentInput.of(group, Map.of("big", partitions), Assignment.empty(), given));
            long t1 = System.nanoTime();
            group.put("m" + members, member(members, "big", aware));
            Assignment joined = STICKY.assign(AssignmentInput.of(group, Map.of("big", partitions), fresh, given));
            long t2 = System.nanoTime();
            System.out.printf(
                    "1,000 x 10,000 %-5s: fresh %7.1f ms (same-rack %5.1f %%), one join %7.1f ms (%d moves, "
                            + "same-rack %5.1f %%)%n",
                    aware ? "aware" : "blind",
                    (t1 - t0) / 1e6,
                    100.0 * local(fresh, group, racks) / partitions,
                    (t2 - t1) / 1e6,
                    moves(fresh, joined),
                    100.0 * local(joined, group, racks) / partitions);
        }
    }
}
