package io.groupkeeper.internal;

import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.log.internal.LogContext;
import io.groupkeeper.metrics.GroupMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.function.Consumer;

/**
 * The pieces of one member ("m" of group "g", topic "t") wired as {@link DefaultGroupMember} wires them, over a
 * {@link ScriptedGroupStore} and a {@link ManualScheduler} that runs the lanes, the callbacks and the timers: a unit
 * test drives them step by step with no thread and no server.
 */
final class MemberParts {

    static final TopicPartition T0 = new TopicPartition("t", 0);
    static final TopicPartition T1 = new TopicPartition("t", 1);
    static final TopicPartition T2 = new TopicPartition("t", 2);

    final ManualScheduler scheduler = new ManualScheduler();
    final ScriptedGroupStore store = new ScriptedGroupStore();
    final Recorder listener = new Recorder();
    final LogContext log = new LogContext("g", "m");
    final MemberConfig config = config(listener);
    final PartitionTable table = new PartitionTable();
    final SerialExecutor lane = new SerialExecutor(scheduler, "member", log);
    /** Runs the user's callbacks: the member's own scheduler, or one of their own (a slow or frozen callback lane). */
    final ManualScheduler callbacks;

    final ListenerInvoker invoker;
    boolean running = true;
    /** Set by the committer when a commit or refresh loses partitions: the member then steps again. */
    int reconcileRequests;

    final Reconciler reconciler;
    final OffsetCommitter committer;

    MemberParts() {
        this(null);
    }

    /** With {@code callbacks} non-null, the callbacks run only when the test runs that scheduler. */
    MemberParts(ManualScheduler callbacks) {
        this.callbacks = callbacks == null ? scheduler : callbacks;
        invoker = new ListenerInvoker(listener, new SerialExecutor(this.callbacks, "callbacks", log));
        Reconciler[] self = new Reconciler[1];
        committer = new OffsetCommitter(
                config, store, table, invoker, log, () -> self[0].generation(), () -> reconcileRequests++);
        reconciler = new Reconciler(
                config, store, table, invoker, committer, log, lane, scheduler, () -> running, () -> store.session);
        self[0] = reconciler;
    }

    static MemberConfig config(RebalanceListener listener) {
        return new MemberConfig(
                "g",
                "m",
                Optional.empty(),
                "host",
                Set.of("t"),
                Assignors.defaultAssignor(),
                listener,
                (topics, onChange) -> Map.of("t", 3),
                Duration.ZERO,
                Duration.ofSeconds(30),
                GroupMetrics.NOOP,
                Duration.ofSeconds(1));
    }

    /** Publishes a target and runs everything that follows until nothing is due. */
    void target(long generation, TopicPartition... partitions) {
        store.target(generation, partitions);
        settle();
    }

    /** One step of the reconciler on its lane, and whatever it queued (callbacks, the step's finish). */
    void step() {
        lane.execute(reconciler::step);
        settle();
    }

    void settle() {
        scheduler.runReady();
    }

    PartitionState state(TopicPartition tp) {
        return table.get(tp).map(PartitionTable.Entry::state).orElse(null);
    }

    /** Records the user callbacks, in order; a revocation may run an action (e.g. hand over final offsets). */
    static final class Recorder implements RebalanceListener {
        final List<String> events = new ArrayList<>();
        Consumer<SortedSet<TopicPartition>> onRevoked = p -> {};

        @Override
        public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
            events.add("assigned " + partitions);
        }

        @Override
        public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
            events.add("revoked " + partitions);
            onRevoked.accept(partitions);
        }

        @Override
        public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
            events.add("lost " + partitions);
        }

        @Override
        public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
            events.add("changed " + partitions);
        }
    }
}
