package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.testkit.ForwardingZkPort;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ManualClock;
import io.groupkeeper.testkit.ModelTransactions;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.AdminLayout;
import io.groupkeeper.zkprotocol.admin.AdminNodes;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import io.groupkeeper.zkprotocol.admin.OutcomeUnknownException;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * The operator's resets ({@link Fault.Kind#RESET}), run by the shipped admin ({@link GroupAdmin}: planner, plan writer,
 * {@code --execute}, lost-reply judging) on its own session of the model, and the checks that a reset executed while
 * the group runs is taken up exactly and never half applied:
 * <ul>
 *   <li><b>whole or not at all</b>: the offset writes of one reset land in one transaction, which writes every
 *   partition the reset asks for (a multi-partition reset never shows part of itself); a reset the admin reports
 *   executed landed, one it refused (nothing written) did not;</li>
 *   <li><b>exact</b>: each partition lands at what the spec asks of the offset the write replaces (a shift from the
 *   offset stored when it lands, not from an older one read on a lagging server), clamped into the log;</li>
 *   <li><b>taken up exactly</b>: once a member has taken a reset up (adopted it, or claimed the partition after it),
 *   processing resumes at the reset point and never goes below it (nothing it skipped is processed after it), until
 *   the next operator write; and nothing it rewound is skipped ({@link SimChecker#external}: the reset is the floor of
 *   the no-loss check).</li>
 * </ul>
 * A reset selects one partition ({@code --to-offset}, as the raw write it replaces did) or every partition of the topic
 * (a rewind or a skip by {@code --shift-by}); one in three loses the answer of its first transaction, landed or not;
 * one in six travels ({@link #travels}): members commit between the admin's reads and its write.
 *
 * <p>About 410 lines: the admin's run, what it sent and the three checks read the same record of one reset.
 */
final class SimResets {

    /** One transaction the admin sent: its operations, the offsets its nodes held on the leader, whether it landed. */
    private record Sent(
            List<ZkOp> ops,
            Map<TopicPartition, OptionalLong> before,
            Map<TopicPartition, Long> ends,
            Set<TopicPartition> existed,
            boolean landed) {}

    /** A reset that landed on a partition: the operator writes counted then, its value, whether processing resumed. */
    private static final class Landed {
        final int edit;
        final long value;
        boolean resumed;
        boolean reported;

        Landed(int edit, long value) {
            this.edit = edit;
            this.value = value;
        }
    }

    private final InMemoryZooKeeper zk;
    private final ManualClock clock;
    private final SimChecker checker;
    private final SimLog log;
    private final String group;
    private final String topic;
    private final IntSupplier partitions;
    private final SimScheduler scheduler;
    private final java.util.concurrent.ScheduledExecutorService operator;
    /** The operator's resets whose transaction does not travel: not carried (a carrier's hand-offs cost wall time). */
    private final java.util.concurrent.ScheduledExecutorService operatorAtOnce;

    private final java.util.concurrent.ScheduledExecutorService network;
    private final List<Sent> sent = new ArrayList<>();
    /** Whether a reset is under way (its transaction in flight): a second one waits for none, it is left out. */
    private boolean busy;
    /** How long the admin's transaction travels (simulated ms): the world runs between its reads and its write. */
    private long flight;
    /** Whether the next transaction's answer is lost ({@code landsFirst}: after it landed); the admin's store. */
    private boolean loseNext;

    private boolean landsFirst;
    private InMemoryCoordinationStore store;
    /**
     * The partitions and log ends when the reset began: what the admin selects and clamps into, once per reset (its
     * log bounds are read when it prepares, not again at each attempt).
     */
    private Map<TopicPartition, Long> planned = Map.of();

    private final Map<TopicPartition, Landed> landed = new HashMap<>();
    private GroupAdmin admin;
    /**
     * Told of each partition whose offset node a reset's transaction wrote: a typo made there after the admin's first
     * read (the first transaction then conflicts and the plan is made again over the unreadable body) is repaired by
     * the reset, so the run must not count the node corrupt any longer (seed 5804).
     */
    private java.util.function.Consumer<TopicPartition> overwrote = tp -> {};

    SimResets(
            InMemoryZooKeeper zk,
            ManualClock clock,
            SimChecker checker,
            SimLog log,
            String group,
            String topic,
            IntSupplier partitions,
            SimScheduler scheduler) {
        this.scheduler = scheduler;
        scheduler.carry("operator"); // its tasks may wait for an answer while the rest of the world runs
        this.operator = scheduler.executor("operator");
        this.operatorAtOnce = scheduler.executor("operator-at-once");
        this.network = scheduler.executor("operator-network");
        this.zk = zk;
        this.clock = clock;
        this.checker = checker;
        this.log = log;
        this.group = group;
        this.topic = topic;
        this.partitions = partitions;
    }

    /** {@code f} is told of each partition whose offset node a reset's transaction wrote. */
    void onOverwrite(java.util.function.Consumer<TopicPartition> f) {
        this.overwrote = f;
    }

    /** The admin's session port ({@code InMemoryCoordinationStore.Builder#instrument}): the admin runs over it. */
    ZkPort port(ZkPort session) {
        ZkPort recording = new ForwardingZkPort(session) {
            @Override
            public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
                Map<TopicPartition, Long> ends = planned;
                // The offset nodes as the admin read them for this plan (no time passed since): a partition whose node
                // did not exist cannot be guarded by the plan's transaction (ZooKeeper has no check of absence).
                Set<TopicPartition> existed = new java.util.TreeSet<>();
                ends.keySet().stream()
                        .filter(tp -> zk.exists(checker.offsetPath(tp)))
                        .forEach(existed::add);
                travel();
                Map<TopicPartition, OptionalLong> before = new TreeMap<>();
                ends.keySet().forEach(tp -> before.put(tp, ModelTransactions.offsetAt(zk, checker.offsetPath(tp))));
                boolean lose = loseNext;
                if (lose) {
                    loseNext = false;
                    store.failNextWrites(1, landsFirst);
                }
                long zxid = zk.lastZxid();
                try {
                    return delegate.multi(ops);
                } finally {
                    if (lose) {
                        store.failNextWrites(0, false);
                    }
                    // The admin's thread runs alone from here: a transaction applied meanwhile is its own. The checker
                    // hears of its writes at once, before any member can adopt them.
                    Sent s = new Sent(List.copyOf(ops), before, ends, existed, zk.lastZxid() != zxid);
                    sent.add(s);
                    if (s.landed()) {
                        offsets(s.ops()).forEach((tp, value) -> {
                            checker.external(tp, "reset", value);
                            landed.put(tp, new Landed(checker.edits(tp), value));
                            overwrote.accept(tp);
                        });
                    }
                }
            }
        };
        admin = GroupAdmin.builder()
                .port(recording)
                .clock(clock)
                .logBounds(new SimLogBounds())
                .build();
        return session;
    }

    /**
     * The admin's first transaction of a reset reaches the server {@link #flight} ms after it was planned: the admin's
     * reads and its write are separate round trips on a real server, and members commit in between (the model would
     * otherwise answer the admin's whole reset in one step, closer than any server). Once: a conflict then makes the
     * plan again at once, so a reset costs at most one backoff (the admin's, a real sleep of a few ms).
     */
    private void travel() {
        long ms = flight;
        flight = 0; // its first transaction only: a plan made again after a conflict goes out at once
        if (ms > 0 && scheduler.threads().canWait()) {
            java.util.concurrent.CompletableFuture<Void> there = new java.util.concurrent.CompletableFuture<>();
            network.schedule(() -> there.complete(null), ms, java.util.concurrent.TimeUnit.MILLISECONDS);
            scheduler.threads().await(there, false);
        }
    }

    /**
     * Whether the reset of {@code f} travels (one in six): its first transaction reaches the server 1 to 200 ms after
     * the admin planned it. The others are answered at once, as the model answers every request; travelling ones run
     * on a carrier, whose hand-offs cost wall time, so one in six keeps the default run's time about the same.
     */
    private static boolean travels(Fault f) {
        return f.value() % 6 == 0;
    }

    /**
     * Runs the reset of fault {@code f} ({@code tp}: its partition) through the admin, on the operator's own simulated
     * thread, then checks how it landed. A fault while another reset is under way is left out.
     */
    void reset(Fault f, TopicPartition tp, Set<TopicPartition> corrupt, InMemoryCoordinationStore store) {
        if (busy) {
            log.event("operator reset left out: another is under way");
            return;
        }
        busy = true;
        (travels(f) ? operator : operatorAtOnce).execute(() -> {
            try {
                run(f, tp, corrupt, store);
            } finally {
                busy = false;
            }
        });
    }

    private void run(Fault f, TopicPartition tp, Set<TopicPartition> corrupt, InMemoryCoordinationStore store) {
        int shape = f.member() % 4;
        boolean one = shape < 2;
        if (one && corrupt.contains(tp)) {
            return; // an absolute reset repairs a typo; the run repairs its typos itself
        }
        ResetSpec spec = one
                ? new ResetSpec.ToOffset(Math.max(0, checker.logEnd(tp) - 1 - f.value() % 40))
                : new ResetSpec.ShiftBy((shape == 2 ? -1 : 1) * (1 + f.value() % 40));
        PartitionSelection selection = one
                ? PartitionSelection.parse(List.of(tp.topic() + ":" + tp.partition()))
                : PartitionSelection.allTopics();
        boolean lose = f.member() / 4 % 3 == 0;
        this.store = store;
        this.landsFirst = f.member() / 12 % 2 == 0;
        this.loseNext = lose;
        String what = "reset " + (one ? tp.toString() : "of topic " + topic) + " " + spec.describe();
        flight = travels(f) ? 1 + f.value() / 40 % 200 : 0;
        Map<TopicPartition, Long> ends = new TreeMap<>();
        for (int p = 0; p < partitions.getAsInt(); p++) {
            ends.put(new TopicPartition(topic, p), checker.logEnd(new TopicPartition(topic, p)));
        }
        planned = ends;
        sent.clear();
        ResetPlan plan = null;
        boolean refused = false;
        String outcome;
        try {
            plan = admin.executeReset(group, selection, spec);
            outcome = "executed (" + plan.attempts() + " attempt(s))";
        } catch (OutcomeUnknownException e) {
            outcome = "outcome unknown";
        } catch (AdminException e) {
            refused = true;
            outcome = "refused: " + e.getMessage();
        } catch (RuntimeException e) {
            outcome = "failed: " + e;
        } finally {
            loseNext = false;
        }
        log.event("operator " + what
                + (lose ? " (its first answer lost, " + (landsFirst ? "landed" : "not landed") + ")" : "") + ": "
                + outcome);
        judge(what, one ? tp : null, spec, plan, refused);
    }

    private void judge(String what, TopicPartition only, ResetSpec spec, ResetPlan plan, boolean refused) {
        List<Sent> in = sent.stream().filter(Sent::landed).toList();
        Map<TopicPartition, Long> written = new TreeMap<>();
        in.forEach(s -> written.putAll(offsets(s.ops())));
        if (in.size() > 1) {
            checker.report("half applied: the " + what + " landed in " + in.size() + " transactions ("
                    + in.stream().map(s -> offsets(s.ops()).keySet().toString()).toList() + "), so the group could "
                    + "see part of it");
        }
        if (refused && !written.isEmpty()) {
            checker.report("the admin said nothing of the " + what + " was written, but " + written + " landed");
        }
        if (plan != null && plan.executed()) {
            Set<TopicPartition> planned = new java.util.TreeSet<>();
            plan.writes().forEach(e -> planned.add(e.partition()));
            if (!planned.equals(written.keySet())) {
                checker.report(
                        "the admin reported the " + what + " executed for " + planned + ", but " + written + " landed");
            }
        }
        for (Sent s : in) {
            Map<TopicPartition, Long> expected = expected(only, spec, s.before(), s.ends(), s.existed());
            Map<TopicPartition, Long> got = offsets(s.ops());
            if (!expected.equals(got)) {
                checker.report("the " + what + " landed as " + got + ", but what it asks of the offsets it replaced ("
                        + s.before() + ") is " + expected
                        + (expected.keySet().equals(got.keySet()) ? "" : ": half applied"));
            }
        }
    }

    /**
     * What {@code spec} asks of the offsets {@code before} (a shift skips a partition without one, and one whose node
     * appeared after the admin read it), clamped into the log as it ended when the admin planned ({@code ends}).
     */
    private Map<TopicPartition, Long> expected(
            TopicPartition only,
            ResetSpec spec,
            Map<TopicPartition, OptionalLong> before,
            Map<TopicPartition, Long> ends,
            Set<TopicPartition> existed) {
        Map<TopicPartition, Long> out = new TreeMap<>();
        Collection<TopicPartition> all = only != null ? List.of(only) : before.keySet();
        for (TopicPartition tp : all) {
            long end = ends.getOrDefault(tp, 0L);
            if (spec instanceof ResetSpec.ToOffset to) {
                out.put(tp, Math.min(end, to.offset()));
            } else if (spec instanceof ResetSpec.ShiftBy shift && before.get(tp).isPresent() && existed.contains(tp)) {
                out.put(tp, Math.max(0, Math.min(end, before.get(tp).getAsLong() + shift.delta())));
            }
        }
        return out;
    }

    /** The offsets a transaction writes, by partition. */
    private Map<TopicPartition, Long> offsets(List<ZkOp> ops) {
        Map<TopicPartition, Long> out = new TreeMap<>();
        String prefix = AdminLayout.offsets(group) + "/" + topic + "/";
        for (ZkOp op : ops) {
            byte[] data = op instanceof ZkOp.SetData s ? s.data() : op instanceof ZkOp.Create c ? c.data() : null;
            if (data != null && op.path().startsWith(prefix)) {
                TopicPartition tp =
                        new TopicPartition(topic, Integer.parseInt(op.path().substring(prefix.length())));
                AdminNodes.offset(op.path(), data).offset().ifPresent(o -> out.put(tp, o));
            }
        }
        return out;
    }

    /**
     * User code processed record {@code offset} of {@code tp} (SimChecker's hook). A member that has taken the last
     * reset of {@code tp} up resumes at its point and never processes below it, until the next operator write.
     */
    void processed(SimMember m, TopicPartition tp, long offset, SimMember.Processing p) {
        Landed r = landed.get(tp);
        if (r == null || r.reported) {
            return;
        }
        if (checker.edits(tp) != r.edit) {
            landed.remove(tp); // another operator write since: its own floor now
            return;
        }
        if (p.seenEdits < r.edit || !zk.isSessionAlive(p.session)) {
            return; // not taken up yet (it owes the adoption), or a zombie's
        }
        if (offset < r.value) {
            r.reported = true;
            checker.report("reset not taken up exactly: " + m.id + " processes record " + offset + " of " + tp
                    + " after taking up the reset to " + r.value + " (a record it skipped, or below its rewind)");
        } else if (!r.resumed) {
            r.resumed = true;
            if (offset != r.value) {
                r.reported = true;
                checker.report("reset not taken up exactly: processing of " + tp + " resumed at " + offset
                        + " after the reset to " + r.value + " (" + m.id + ")");
            }
        }
    }

    /** The simulated log: every partition's log starts at 0 and ends where the producer is. */
    private final class SimLogBounds implements LogBounds {
        @Override
        public Map<String, Integer> partitionCounts(Collection<String> topics) {
            return topics.contains(topic) ? Map.of(topic, partitions.getAsInt()) : Map.of();
        }

        @Override
        public Map<TopicPartition, Long> earliest(Collection<TopicPartition> ps) {
            Map<TopicPartition, Long> m = new HashMap<>();
            ps.forEach(tp -> m.put(tp, 0L));
            return m;
        }

        @Override
        public Map<TopicPartition, Long> latest(Collection<TopicPartition> ps) {
            Map<TopicPartition, Long> m = new HashMap<>();
            ps.forEach(tp -> m.put(tp, checker.logEnd(tp)));
            return m;
        }

        @Override
        public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> ps, Instant timestamp) {
            return Map.of();
        }

        @Override
        public String describe() {
            return "the simulated log";
        }
    }
}
