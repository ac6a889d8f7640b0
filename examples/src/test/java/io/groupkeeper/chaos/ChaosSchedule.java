package io.groupkeeper.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fault schedule: a pure function of the seed and the {@link Settings} ({@code java.util.Random(seed)}), printed
 * before a run, so a failing seed replays the same faults in the same order with the same gaps (the timing of the
 * system under test varies, which is the point).
 *
 * <p>A step names what to do and whom, abstractly: a group, a {@code target} number that the run maps onto the
 * members alive at that moment ({@code target % live}), a duration, an amount. Each step waits {@code gapMillis} after
 * the previous step finished, so planned separations between steps are lower bounds in the run too.
 *
 * <p>Shape: group sizes stay within their bounds (a member that leaves or crashes is replaced by a {@link Kind#JOIN}
 * 0.5–3.5 s later, and extra joins happen while a group is below its maximum); at most one ZooKeeper server is down at
 * a time (every kill is followed by a {@link Kind#ZK_RESTART} 1–5 s later); the partition count only grows, up to a
 * cap. Until every enabled kind of fault has occurred once, the next fault is the first eligible kind not seen yet,
 * so even a short schedule covers them all.
 *
 * <p>A session expiry ({@link Kind#EXPIRE}) is a network partition of one member, long enough (session timeout + 3 to
 * 4.5 s) for the servers to expire its session; the member's client notices first, through its read timeout.
 *
 * <p>What the schedule keeps apart on purpose (see docs/reliability.md): a stall (user code blocked for longer than
 * the session timeout, while the member's session stays alive) never overlaps a fault that can end a session or a
 * connection (cut-off, ZooKeeper server kill): from the start of a stall until 2 s after its end none begins, and a
 * stall starts at least the session timeout + 2 s after the last one ended. A member whose session expires while its user
 * code is blocked is a paused process, which no lease can fence: its batch in hand is finished after someone else
 * took over — that is outside what groupkeeper promises, not something this run should stumble into by accident.
 *
 * <p>That combination is injected on purpose, once, as its own kind: a {@link Kind#ZOMBIE zombie batch} — a member's
 * user code blocks on a record (the batch in hand) and its network is cut at the same moment, the cut as long as an
 * expiry's, the stall 2–4 s longer than the cut (the successor must have started: the session expires up to a tick
 * after its timeout, and the leader may be busy). Its session expires, its partitions move on, and the batch is
 * finished after the successor started: the checker measures that overlap instead of failing on it. Nothing that
 * ends a session or a connection, and no stall, begins from its start until 2 s after its cut-off healed (the member
 * has a new session by then, and its stall ends within 2 s more, sooner than a later cut-off could be noticed), and
 * it starts only where a stall may (its member must have a healthy session when it begins).
 */
final class ChaosSchedule {

    /** What a step does; {@link #fault} kinds count as injected faults. */
    enum Kind {
        LEAVE(true, 12),
        CRASH(true, 16),
        EXPIRE(true, 14),
        STALL(true, 7),
        ZOMBIE(true, 5),
        ZK_KILL(true, 12),
        LEADER_KILL(true, 12),
        RESET(true, 16),
        ADD_PARTITIONS(true, 6),
        /** The Kafka broker stops and starts again on its log directory and ports (opt-in: not in allFaults). */
        KAFKA_RESTART(true, 8),
        JOIN(false, 0),
        ZK_RESTART(false, 0);

        final boolean fault;
        final int weight;

        Kind(boolean fault, int weight) {
            this.fault = fault;
            this.weight = weight;
        }

        /**
         * The kinds of the plain chaos run: every fault kind but {@link #KAFKA_RESTART} (which its schedules predate:
         * the same seed keeps giving the same schedule).
         */
        static Set<Kind> allFaults() {
            Set<Kind> all = EnumSet.noneOf(Kind.class);
            for (Kind k : values()) {
                if (k.fault && k != KAFKA_RESTART) {
                    all.add(k);
                }
            }
            return all;
        }
    }

    /**
     * One step: wait {@code gapMillis} after the previous step, then do {@code kind} to {@code group}'s member number
     * {@code target % live}.
     *
     * @param durationMillis how long a stall lasts; how long a cut-off lasts (an expiry, a zombie batch)
     * @param amount         partitions added, how far a reset shifts back, or how much longer a zombie's stall lasts
     *                       than its cut-off
     * @param partitions     the partitions a reset selects ({@code % partition count} at run time)
     * @param abandon        a crash whose session is left to time out (kill -9) rather than closed at once
     */
    record Step(
            int index,
            long gapMillis,
            Kind kind,
            int group,
            int target,
            long durationMillis,
            int amount,
            List<Integer> partitions,
            boolean abandon) {

        String describe() {
            StringBuilder s = new StringBuilder(String.format("#%03d +%5d ms %-14s", index, gapMillis, kind));
            switch (kind) {
                case LEAVE, JOIN, LEADER_KILL ->
                    s.append(" group=").append(group).append(" target=").append(target);
                case EXPIRE ->
                    s.append(" group=")
                            .append(group)
                            .append(" target=")
                            .append(target)
                            .append(" cut-off=")
                            .append(durationMillis)
                            .append("ms");
                case CRASH ->
                    s.append(" group=")
                            .append(group)
                            .append(" target=")
                            .append(target)
                            .append(abandon ? " session=timeout" : " session=closed");
                case STALL ->
                    s.append(" group=")
                            .append(group)
                            .append(" target=")
                            .append(target)
                            .append(" for=")
                            .append(durationMillis)
                            .append("ms");
                case ZOMBIE ->
                    s.append(" group=")
                            .append(group)
                            .append(" target=")
                            .append(target)
                            .append(" cut-off=")
                            .append(durationMillis)
                            .append("ms stall=")
                            .append(durationMillis + amount)
                            .append("ms");
                case ZK_KILL -> s.append(" server-of=").append(target);
                case KAFKA_RESTART -> s.append(" down=").append(durationMillis).append("ms");
                case RESET ->
                    s.append(" group=")
                            .append(group)
                            .append(" partitions=")
                            .append(partitions)
                            .append(" shift=-")
                            .append(amount);
                case ADD_PARTITIONS -> s.append(" +").append(amount);
                case ZK_RESTART -> {}
            }
            return s.toString();
        }
    }

    /**
     * @param faults            how many faults to inject
     * @param sessionTimeout    the members' ZooKeeper session timeout (stalls last longer than this)
     * @param initialSizes      members per group at the start
     * @param minSizes          fewest members per group (no leave or crash below this)
     * @param maxSizes          most members per group
     * @param partitions        the topic's partitions at the start
     * @param maxPartitions     cap for partition increases
     * @param minGapMillis      shortest pause between faults
     * @param gapSpreadMillis   pauses are {@code minGapMillis + [0, gapSpreadMillis)}
     * @param kinds             the kinds of fault to inject
     */
    record Settings(
            int faults,
            long sessionTimeout,
            int[] initialSizes,
            int[] minSizes,
            int[] maxSizes,
            int partitions,
            int maxPartitions,
            long minGapMillis,
            long gapSpreadMillis,
            Set<Kind> kinds) {}

    private ChaosSchedule() {}

    static List<Step> generate(long seed, Settings s) {
        Random rnd = new Random(seed);
        List<Step> steps = new ArrayList<>();
        int groups = s.initialSizes().length;
        int[] size = s.initialSizes().clone();
        int[] pendingJoins = new int[groups];
        // recovery steps not yet emitted: {due, kind ordinal, group}
        PriorityQueue<long[]> due = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        int partitions = s.partitions();
        long[] t = {0}; // planned time of the last emitted step
        long clock = 0; // planned time of the last fault considered
        boolean[] zkDown = {false};
        long lastConnectionFault = Long.MIN_VALUE / 4;
        long stallWindowEnd = Long.MIN_VALUE / 4;
        List<Kind> unseen = new ArrayList<>();
        for (Kind k : Kind.values()) {
            if (k.fault && s.kinds().contains(k)) {
                unseen.add(k);
            }
        }
        Collections.shuffle(unseen, rnd);
        // first the stall, then the zombie batch: later, connection faults come too often to leave them a window
        if (unseen.remove(Kind.ZOMBIE)) {
            unseen.add(0, Kind.ZOMBIE);
        }
        if (unseen.remove(Kind.STALL)) {
            unseen.add(0, Kind.STALL);
        }
        int injected = 0;
        while (injected < s.faults()) {
            long at = Math.max(clock, t[0]) + s.minGapMillis() + (long) (rnd.nextDouble() * s.gapSpreadMillis());
            clock = at;
            emitDue(steps, due, at, t, size, pendingJoins, zkDown);
            // now and then, a member joins beyond the replacements (sizes wander between min and max)
            if (rnd.nextInt(100) < 15) {
                int g = rnd.nextInt(groups);
                if (size[g] + pendingJoins[g] < s.maxSizes()[g]) {
                    pendingJoins[g]++;
                    due.add(new long[] {at + 200 + rnd.nextInt(1_000), Kind.JOIN.ordinal(), g});
                }
            }
            boolean stallOk =
                    at > stallWindowEnd && at - lastConnectionFault > s.sessionTimeout() + 2_000 && !zkDown[0];
            boolean connectionOk = at > stallWindowEnd;
            List<Kind> eligible = new ArrayList<>();
            for (Kind k : Kind.values()) {
                if (!k.fault || !s.kinds().contains(k)) {
                    continue;
                }
                boolean ok = switch (k) {
                    case LEAVE, CRASH, LEADER_KILL -> removable(size, s.minSizes()) >= 0;
                    case EXPIRE -> connectionOk;
                    case STALL, ZOMBIE -> stallOk;
                    case ZK_KILL -> connectionOk && !zkDown[0];
                    case KAFKA_RESTART -> connectionOk;
                    case RESET -> true;
                    case ADD_PARTITIONS -> partitions < s.maxPartitions();
                    default -> false;
                };
                if (ok) {
                    eligible.add(k);
                }
            }
            Kind kind = null;
            for (Kind k : unseen) {
                if (eligible.contains(k)) {
                    kind = k;
                    break;
                }
            }
            if (kind == null && eligible.isEmpty()) {
                continue; // nothing may happen now (e.g. only stalls enabled, inside a stall window): later
            }
            if (kind == null) {
                int total = eligible.stream().mapToInt(k -> k.weight).sum();
                int pick = rnd.nextInt(total);
                for (Kind k : eligible) {
                    pick -= k.weight;
                    if (pick < 0) {
                        kind = k;
                        break;
                    }
                }
            }
            unseen.remove(kind);
            // group 0 three times out of four; the other group when it is the only one that may shrink
            int group = groups > 1 && rnd.nextInt(4) == 0 ? 1 : 0;
            if ((kind == Kind.LEAVE || kind == Kind.CRASH || kind == Kind.LEADER_KILL)
                    && size[group] <= s.minSizes()[group]) {
                group = removable(size, s.minSizes());
            }
            int target = rnd.nextInt(1_000);
            long duration = 0;
            int amount = 0;
            List<Integer> selected = List.of();
            boolean abandon = false;
            switch (kind) {
                case LEAVE, CRASH, LEADER_KILL -> {
                    abandon = kind == Kind.CRASH && rnd.nextBoolean();
                    size[group]--;
                    pendingJoins[group]++;
                    due.add(new long[] {at + 500 + rnd.nextInt(3_000), Kind.JOIN.ordinal(), group});
                }
                case EXPIRE -> {
                    // cut off long enough for the session to expire (the server checks once per tick, 2 s)
                    duration = s.sessionTimeout() + 3_000 + rnd.nextInt(1_500);
                    lastConnectionFault = at + duration;
                }
                case STALL -> {
                    duration = s.sessionTimeout() + 1_000 + rnd.nextInt(1_500);
                    stallWindowEnd = at + duration + 2_000;
                }
                case ZOMBIE -> {
                    duration = s.sessionTimeout() + 3_000 + rnd.nextInt(1_500); // the cut-off: as long as an expiry's
                    amount = 2_000 + rnd.nextInt(2_000); // the stall ends this long after the cut-off healed
                    lastConnectionFault = at + duration;
                    // its window is the cut-off's: 2 s after the heal the member has a new session, and its stall
                    // ends 0-2 s later, too soon for a later cut-off to catch it (noticed after 2/3 of a session)
                    stallWindowEnd = at + duration + 2_000;
                }
                case ZK_KILL -> {
                    group = 0;
                    lastConnectionFault = at;
                    zkDown[0] = true;
                    due.add(new long[] {at + 1_000 + rnd.nextInt(4_000), Kind.ZK_RESTART.ordinal(), 0});
                }
                case RESET -> {
                    TreeSet<Integer> ps = new TreeSet<>();
                    int n = 1 + rnd.nextInt(4);
                    while (ps.size() < n) {
                        ps.add(rnd.nextInt(s.maxPartitions()));
                    }
                    selected = List.copyOf(ps);
                    amount = 5 + rnd.nextInt(60);
                }
                case KAFKA_RESTART -> duration = 500 + rnd.nextInt(2_500); // how long the broker stays down
                case ADD_PARTITIONS -> {
                    amount = Math.min(1 + rnd.nextInt(3), s.maxPartitions() - partitions);
                    partitions += amount;
                }
                default -> throw new IllegalStateException(kind.name());
            }
            steps.add(new Step(steps.size(), at - t[0], kind, group, target, duration, amount, selected, abandon));
            t[0] = at;
            injected++;
        }
        emitDue(steps, due, Long.MAX_VALUE, t, size, pendingJoins, zkDown);
        return List.copyOf(steps);
    }

    /** Emits the recovery steps (joins, server restarts) due before {@code until}, in order. */
    private static void emitDue(
            List<Step> steps,
            PriorityQueue<long[]> due,
            long until,
            long[] t,
            int[] size,
            int[] pendingJoins,
            boolean[] zkDown) {
        while (!due.isEmpty() && due.peek()[0] <= until) {
            long[] d = due.poll();
            Kind kind = Kind.values()[(int) d[1]];
            int group = (int) d[2];
            long at = Math.max(d[0], t[0]);
            steps.add(new Step(steps.size(), at - t[0], kind, group, 0, 0, 0, List.of(), false));
            t[0] = at;
            if (kind == Kind.JOIN) {
                size[group]++;
                pendingJoins[group]--;
            } else {
                zkDown[0] = false;
            }
        }
    }

    /** A group that may lose a member, preferring group 0; -1 if none. */
    private static int removable(int[] size, int[] min) {
        for (int g = 0; g < size.length; g++) {
            if (size[g] > min[g]) {
                return g;
            }
        }
        return -1;
    }

    static int faults(List<Step> steps) {
        return (int) steps.stream().filter(st -> st.kind().fault).count();
    }

    /** The schedule as printed before a run. */
    static String describe(long seed, List<Step> steps) {
        StringBuilder s = new StringBuilder(
                "chaos schedule seed=" + seed + " faults=" + faults(steps) + " steps=" + steps.size() + " planned="
                        + steps.stream().mapToLong(Step::gapMillis).sum() / 1000 + "s\n");
        steps.forEach(st -> s.append("  ").append(st.describe()).append('\n'));
        return s.toString();
    }
}
