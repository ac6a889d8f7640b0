package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A model of what the offset mirror relies on in Kafka, for the protocol simulator: the group's offset per partition,
 * and per partition's transactional id an epoch. Opening a writer bumps the epoch (Kafka's {@code initTransactions}
 * fences every earlier producer of the id); a write carries its writer's epoch and is rejected, when it is applied, if
 * a later writer was opened by then. A write may be applied late, after its sender gave up on it (a request queued in
 * the broker, the client's internal retry): seeded, its landing is a simulated task. Every write is tagged with the
 * store commit it mirrors ({@link CommitOf}), as it lands. Kafka's calls take time ({@link #latencyMillis}): the
 * mirror's thread starts its next task that much later. Kafka's offset must never move back to an older store commit
 * (M1).
 */
public final class KafkaOffsetsModel {

    /** The store commit (its zxid) a member's offset came from; -1 if none is known. */
    @FunctionalInterface
    public interface CommitOf {
        long commit(String member, TopicPartition tp, long offset);
    }

    /** Kafka's offset of a partition, the store commit it mirrors and the member that wrote it. */
    private record Shown(long offset, long commit, String member) {}

    private final Random random;
    private final ScheduledExecutorService broker;
    private final Consumer<String> violations;
    private final CommitOf commitOf;
    private final Map<TopicPartition, Shown> shown = new HashMap<>();
    private final Map<TopicPartition, Integer> epochs = new HashMap<>();
    private long landed;
    private long rejected;

    /** {@code broker} runs the late landings; {@code violations} hears each backwards move. */
    public KafkaOffsetsModel(
            long seed, ScheduledExecutorService broker, Consumer<String> violations, CommitOf commitOf) {
        this.random = new Random(seed * 41 + 11);
        this.broker = broker;
        this.violations = violations;
        this.commitOf = commitOf;
    }

    /** How many writes Kafka took, so far. */
    public long landed() {
        return landed;
    }

    /** How many writes Kafka rejected (a later writer of their partition was opened before they landed), so far. */
    public long rejected() {
        return rejected;
    }

    /**
     * How long the mirror's thread was busy with Kafka before its next task: mostly a few milliseconds, one call in ten
     * up to five seconds (a slow broker, a call that waits for its timeout).
     */
    public long latencyMillis() {
        return random.nextInt(10) == 0 ? random.nextInt(5_000) : random.nextInt(20);
    }

    /** Member {@code member}'s offset mirror over this Kafka, its one thread's tasks run by {@code thread}. */
    public MirrorAccess mirror(String group, String member, Executor thread) {
        return new MirrorAccess(new OffsetMirror(
                group, group, new Fenced(member), GroupMetrics.NOOP, Duration.ofMinutes(1), () -> 0L, thread));
    }

    /** One member's {@link FencedOffsets}: its writers, tagged with the member. */
    private final class Fenced implements FencedOffsets {
        private final String member;

        Fenced(String member) {
            this.member = member;
        }

        @Override
        public Writer open(TopicPartition tp) {
            if (random.nextInt(20) == 0) {
                throw new IllegalStateException("model: initTransactions timed out");
            }
            int epoch = epochs.merge(tp, 1, Integer::sum);
            return new Writer() {
                @Override
                public void write(long offset) {
                    int fate = random.nextInt(20);
                    if (fate < 14) { // applied now
                        if (!land(tp, epoch, offset, member)) {
                            throw new FencedOffsets.Fenced(new IllegalStateException("model: producer fenced"));
                        }
                    } else if (fate < 17) { // the client gives up (its abort fails too); the write lands later
                        broker.schedule(
                                () -> land(tp, epoch, offset, member),
                                1 + random.nextInt(3_000),
                                TimeUnit.MILLISECONDS);
                        throw new Failed(new IllegalStateException("model: commit timed out"), false);
                    } else { // rolled back
                        throw new Failed(new IllegalStateException("model: transaction aborted"), true);
                    }
                }

                @Override
                public void close(Duration wait) {}
            };
        }

        @Override
        public String liveMembers() {
            return null;
        }

        @Override
        public void close(Duration wait) {}
    }

    /** Applies a write of {@code epoch}: false if a later writer of {@code tp} was opened (rejected). */
    private boolean land(TopicPartition tp, int epoch, long offset, String member) {
        if (epoch < epochs.getOrDefault(tp, 0)) {
            rejected++;
            return false;
        }
        landed++;
        long commit = commitOf.commit(member, tp, offset); // (known once the write lands: a release may land late)
        Shown was = shown.get(tp);
        if (commit < 0) {
            violations.accept("M0: " + member + " mirrored " + tp + "=" + offset + ", which no commit of its stored");
        } else if (was != null && commit < was.commit()) {
            violations.accept("M1: Kafka's offset of " + tp + " moved back from " + was.offset() + " (store commit "
                    + was.commit() + ", by " + was.member() + ") to " + offset + " (store commit " + commit + ", by "
                    + member + ")");
        }
        shown.put(tp, new Shown(offset, commit, member));
        return true;
    }
}
