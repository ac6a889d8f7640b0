package io.groupkeeper.benchmarks.jmh;

import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.AssignmentInput;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.assignor.PartitionAssignor;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Assignor compute time at members × partitions of 10×100, 100×1,000 and 1,000×10,000, one topic, every member
 * subscribed.
 *
 * <ul>
 *   <li>{@code fresh}: nobody owns anything yet (a cold start); the whole assignment is computed.</li>
 *   <li>{@code join}: the current assignment is the same assignor's answer for all members but one, and that one
 *   has just joined: the common rebalance, and the input the leader really sees on a scale-out.</li>
 * </ul>
 * The time includes building nothing but the assignor's own work and the immutable {@link Assignment} it returns.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class AssignorBenchmark {

    @Param({"range", "round-robin", "sticky"})
    public String assignor;

    /** members x partitions */
    @Param({"10x100", "100x1000", "1000x10000"})
    public String size;

    @Param({"fresh", "join"})
    public String scenario;

    private PartitionAssignor impl;
    private AssignmentInput input;

    @Setup
    public void setUp() {
        impl = Assignors.byName(assignor);
        String[] mp = size.split("x");
        int members = Integer.parseInt(mp[0]);
        int partitions = Integer.parseInt(mp[1]);
        input = input(impl, members, partitions, scenario.equals("join"));
    }

    /** The input of a cold start ({@code join=false}) or of one member joining {@code members - 1}. */
    public static AssignmentInput input(PartitionAssignor impl, int members, int partitions, boolean join) {
        Map<String, Integer> counts = Map.of("topic", partitions);
        SortedMap<String, MemberSubscription> all = new TreeMap<>();
        for (int i = 0; i < members; i++) {
            String id = String.format("member-%05d", i);
            all.put(id, MemberSubscription.of(id, "topic"));
        }
        Assignment current = Assignment.empty();
        if (join) {
            // The joiner sorts in the middle, as a random member id would on average.
            String joiner = String.format("member-%05d", members / 2);
            SortedMap<String, MemberSubscription> before = new TreeMap<>(all);
            before.remove(joiner);
            current = impl.assign(AssignmentInput.of(before, counts, Assignment.empty()));
        }
        return AssignmentInput.of(all, counts, current);
    }

    @Benchmark
    public Assignment assign() {
        return impl.assign(input);
    }
}
