package io.groupkeeper.metrics;

import io.groupkeeper.TopicPartition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Records groupkeeper's metrics into a Micrometer {@link MeterRegistry}. Meter names and tags are listed in
 * docs/metrics.md. Gauges of a member or partition are removed when it closes or stops, so a long-running process
 * does not accumulate meters of members long gone.
 */
public final class MicrometerGroupMetrics implements GroupMetrics {

    private final MeterRegistry registry;
    private final Map<String, List<Meter>> memberMeters = new ConcurrentHashMap<>();
    private final Map<String, Meter> lagGauges = new ConcurrentHashMap<>();

    public MicrometerGroupMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    private static Tags memberTags(String group, String member) {
        return Tags.of("group", group, "member", member);
    }

    @Override
    public void memberStarted(String group, String member, LongSupplier generation, LongSupplier ownedPartitions) {
        memberClosed(group, member); // a re-started member id gets fresh gauges bound to the new member
        List<Meter> meters = new CopyOnWriteArrayList<>();
        meters.add(Gauge.builder("groupkeeper.member.generation", generation, s -> s.getAsLong())
                .description("Generation of the target assignment the member follows")
                .tags(memberTags(group, member))
                .strongReference(true)
                .register(registry));
        meters.add(Gauge.builder("groupkeeper.member.partitions.owned", ownedPartitions, s -> s.getAsLong())
                .description("Partitions the member owns now")
                .tags(memberTags(group, member))
                .strongReference(true)
                .register(registry));
        memberMeters.put(group + "/" + member, meters);
    }

    @Override
    public void memberClosed(String group, String member) {
        List<Meter> meters = memberMeters.remove(group + "/" + member);
        if (meters != null) {
            meters.forEach(registry::remove);
        }
    }

    @Override
    public void rebalanced(String group, String member, long generation, int gained, int revoked, long nanos) {
        Timer.builder("groupkeeper.rebalance")
                .description("Rebalance steps of a member, and how long they took")
                .tags(memberTags(group, member))
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
        DistributionSummary.builder("groupkeeper.rebalance.partitions.moved")
                .description("Partitions gained or revoked by a member in one rebalance step")
                .tags(memberTags(group, member))
                .register(registry)
                .record(gained + revoked);
    }

    @Override
    public void partitionsLost(String group, String member, int count) {
        Counter.builder("groupkeeper.partitions.lost")
                .description("Partitions lost without a release")
                .tags(memberTags(group, member))
                .register(registry)
                .increment(count);
    }

    @Override
    public void generationPublished(String group, long generation, int changedTargets, int movedPartitions) {
        Counter.builder("groupkeeper.generations.published")
                .description("Generations published by the leader")
                .tag("group", group)
                .register(registry)
                .increment();
        DistributionSummary.builder("groupkeeper.generation.partitions.moved")
                .description("Partitions that change owner in a published generation")
                .tag("group", group)
                .register(registry)
                .record(movedPartitions);
    }

    @Override
    public void committed(String group, String member, int committed, int adopted, int fenced, long nanos) {
        Tags tags = memberTags(group, member);
        Timer.builder("groupkeeper.commit")
                .description("Commit calls and their latency")
                .tags(tags)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
        count("committed", tags, committed);
        count("adopted", tags, adopted);
        count("fenced", tags, fenced);
    }

    private void count(String result, Tags tags, int n) {
        if (n > 0) {
            Counter.builder("groupkeeper.commit.partitions")
                    .description("Partitions per commit outcome: committed, adopted (an external edit won), fenced")
                    .tags(tags.and("result", result))
                    .register(registry)
                    .increment(n);
        }
    }

    @Override
    public void connectionState(String state) {
        Counter.builder("groupkeeper.connection.state.changes")
                .description("ZooKeeper connection state changes")
                .tag("state", state)
                .register(registry)
                .increment();
    }

    @Override
    public void offsetCorrected(String group, TopicPartition partition, String policy) {
        Counter.builder("groupkeeper.offset.corrections")
                .description("Stored offsets outside the log corrected by the out-of-range policy")
                .tags("group", group, "topic", partition.topic(), "policy", policy)
                .register(registry)
                .increment();
    }

    @Override
    public void lagStarted(String group, String member, TopicPartition partition, LongSupplier lag) {
        lagStopped(group, member, partition);
        Meter gauge = Gauge.builder("groupkeeper.partition.lag", lag, s -> s.getAsLong())
                .description("Log end offset minus the member's position (records not yet processed)")
                .tags(memberTags(group, member)
                        .and("topic", partition.topic(), "partition", String.valueOf(partition.partition())))
                .strongReference(true)
                .register(registry);
        lagGauges.put(group + "/" + member + "/" + partition, gauge);
    }

    @Override
    public void lagStopped(String group, String member, TopicPartition partition) {
        Meter gauge = lagGauges.remove(group + "/" + member + "/" + partition);
        if (gauge != null) {
            registry.remove(gauge);
        }
    }

    @Override
    public void offsetsMirrored(String group, int partitions) {
        Counter.builder("groupkeeper.offsets.mirrored")
                .description("Partition offsets copied to Kafka's group offset store after a commit")
                .tag("group", group)
                .register(registry)
                .increment(partitions);
    }

    @Override
    public void offsetMirrorFailed(String group, int partitions) {
        Counter.builder("groupkeeper.offsets.mirror.failures")
                .description("Partition offsets that could not be copied to Kafka's group offset store")
                .tag("group", group)
                .register(registry)
                .increment(partitions);
    }
}
