package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.CommittedSample;
import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.Reset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Judges a chaos run:
 * <ul>
 *   <li><b>lost</b>: offsets in {@code [0, logEnd)} of a partition never processed by any member of a group;</li>
 *   <li><b>overlaps</b>: two members' ownership intervals of one partition of one group that intersect (I1), and
 *   records whose processing interval is not inside an interval in which the processing member owned the
 *   partition;</li>
 *   <li><b>duplicates</b>: processings beyond the first of an offset, not explained by an admin reset (a reset to
 *   {@code r} clears the done set too, so its owner replays every offset from {@code r} up to the highest it had
 *   processed, done or started, in any order of keys: the reset's adoption is the owner's first repeat at or above
 *   {@code r} since the reset began of a record it had processed itself in the same ownership interval, provided the
 *   owner goes on to repeat a record below the reset's old offset, and every processing before the adoption at or
 *   above {@code r} may be repeated once after it);</li>
 *   <li><b>bound</b>: the records that crashes and losses may replay — the union of (a) for every crash fault, the
 *   records the crashed member processed within the uncommitted window around it, and (b) for every ownership
 *   interval that ended without a commit (lost or crashed) <em>and</em> is explained by a fault exposing that member
 *   shortly before — or by the member's own report that it stopped processing without commit
 *   ({@link ChaosLedger.Stop}: a connection in doubt that no fault was aimed at) — the records the member processed in
 *   that interval at or above the committed offset last sampled before the interval ended. Every duplicate must be a
 *   repeat of a record in the bound ("duplicates only after a crash or expiry, no more than the uncommitted window"); a
 *   duplicate that is not is <b>unexplained</b>;</li>
 *   <li><b>key-order-violations</b>: two records of one key processed out of offset order, or at once, within one
 *   ownership interval of one claim (the fencing token each record was processed under) with no reset between them
 *   ({@link KeyOrderCheck}; fails the run unless the ordering is {@code UNORDERED});</li>
 *   <li><b>backwards</b>: a committed offset that moved back, other than to or past a reset's target written between
 *   the two samples (from the start of the earlier sample's read: a slow read may return after the write);</li>
 *   <li><b>unwritten</b>: in a group whose members write to the run's fenced sink, offsets in {@code [0, logEnd)} of
 *   which no write was accepted — a record whose only processing was a former claim's refused write, never done again
 *   (an old claim's completion taken as done by the next claim would show here, not under <b>lost</b>);</li>
 *   <li><b>zombies</b> (measured, outside the promise): a zombie batch's overlap with its successor, in time and in
 *   records ({@link ZombieOverlaps}: excused from <b>overlaps</b>, and its late records' repeats from
 *   <b>unexplained</b>); the writes to the run's fenced sink made by former claims after another claim (another member's, or a newer
 *   one of the same member) opened the partition, how many the token refused, and any violation of the token's rule ({@link FencingCheck}: these fail
 *   the run).</li>
 * </ul>
 * Times are wall-clock milliseconds; ties keep the ledger's order. Over 500 lines on purpose: every rule reads the same
 * indexes of the ledger built once here; checks with state of their own live apart ({@link KeyOrderCheck},
 * {@link FencingCheck}, {@link ZombieOverlaps}).
 */
public final class ChaosChecker {

    /** The verdict, and the one summary line a run prints. */
    public record Report(
            long seed,
            int faults,
            long records,
            long lost,
            long overlaps,
            long duplicates,
            long bound,
            long unexplained,
            long backwards,
            long unwritten,
            Zombies zombies,
            long keyOrderViolations,
            boolean keyOrderPromised,
            List<String> problems,
            List<String> notes) {

        public boolean ok() {
            return lost == 0
                    && overlaps == 0
                    && backwards == 0
                    && unexplained == 0
                    && unwritten == 0
                    && duplicates <= bound
                    && zombies.fencingViolations() == 0
                    && (!keyOrderPromised || keyOrderViolations == 0);
        }

        public String summary() {
            return "chaos seed=" + seed + " faults=" + faults + " records=" + records + " lost=" + lost + " overlaps="
                    + overlaps + " duplicates=" + duplicates + " (bound " + bound + ")"
                    + " key-order-violations=" + keyOrderViolations + (keyOrderPromised ? "" : " (not promised)")
                    + " zombie-overlap-ms=" + zombies.overlapMillis() + " zombie-records=" + zombies.records()
                    + " zombie-writes-refused=" + zombies.writesRefused() + "/" + zombies.writes()
                    + (unexplained > 0 ? " unexplained=" + unexplained : "")
                    + (backwards > 0 ? " backwards=" + backwards : "")
                    + (unwritten > 0 ? " unwritten=" + unwritten : "")
                    + (zombies.fencingViolations() > 0 ? " fencing-violations=" + zombies.fencingViolations() : "");
        }
    }

    /**
     * What zombie batches did, outside the promise, measured: the longest overlap of a zombie's ownership with its
     * successor's, the records zombies processed after their successors started, their writes to the sink after
     * someone else had opened the partition and how many of those the fencing token refused; and the sink's
     * violations of the token's rule (a late write accepted, an owner refused, a token accepted out of order).
     */
    public record Zombies(long overlapMillis, long records, long writes, long writesRefused, long fencingViolations) {}

    /** A fault explains a loss that ends up to this long before it (the member's clock vs the injector's). */
    private static final long EXPLAIN_SLACK_MILLIS = 1_000;
    /**
     * A sample's and a reset's recorded times may be this far out of order (each clock is read around a round trip;
     * a sample carries its read's start too, for a slow read answered before a reset's write).
     */
    private static final long SAMPLE_SLACK_MILLIS = 50;
    /** Messages kept per kind of problem; the counts stay exact. */
    private static final int MAX_MESSAGES = 20;

    /** The kind of exposure a member's own report of stopping without commit ({@link ChaosLedger.Stop}) counts as. */
    private static final String STOPPED = "stopped without commit";

    /** A reset's owner may still be on its old progress this long after the reset was written (the key check). */
    private static final long RESET_ADOPT_MILLIS = 10_000;

    private final long uncommittedWindowMillis;
    private final long explainMillis;
    private final boolean keyOrderPromised;

    /** @param uncommittedWindowMillis the commit interval plus the longest a polled batch may take to process */
    public ChaosChecker(long uncommittedWindowMillis) {
        this(uncommittedWindowMillis, 10_000);
    }

    /**
     * @param uncommittedWindowMillis the commit interval plus the longest a polled batch may take to process
     * @param explainMillis           how long after a fault a member exposed by it may report its partitions lost
     */
    public ChaosChecker(long uncommittedWindowMillis, long explainMillis) {
        this(uncommittedWindowMillis, explainMillis, true);
    }

    /**
     * @param keyOrderPromised whether the members promise per-key order ({@code KEY} and {@code PARTITION}, and the
     *                         plain consumer loop): then a key-order violation ({@link KeyOrderCheck}) fails the run;
     *                         under {@code UNORDERED} it is only counted
     */
    public ChaosChecker(long uncommittedWindowMillis, long explainMillis, boolean keyOrderPromised) {
        this.uncommittedWindowMillis = uncommittedWindowMillis;
        this.explainMillis = explainMillis;
        this.keyOrderPromised = keyOrderPromised;
    }

    public Report check(long seed, ChaosLedger ledger, Set<String> groups, Map<Integer, Long> logEnd) {
        Messages problems = new Messages();
        List<String> notes = new ArrayList<>();
        List<Processed> ordered = new ArrayList<>(ledger.processed());
        ordered.sort(Comparator.comparingLong(Processed::atMillis)); // stable: ties keep the ledger's order
        List<Ownership> ownerships = ledger.ownerships();
        List<Fault> faults = ledger.faults();
        List<Reset> resets = ledger.resets();

        Map<String, List<Integer>> byPartition = new HashMap<>();
        Map<String, List<Integer>> byMemberPartition = new HashMap<>();
        Map<String, List<Integer>> byMember = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            Processed p = ordered.get(i);
            byPartition
                    .computeIfAbsent(key(p.group(), p.partition()), k -> new ArrayList<>())
                    .add(i);
            byMemberPartition
                    .computeIfAbsent(key(p.group(), p.partition()) + "/" + p.member(), k -> new ArrayList<>())
                    .add(i);
            byMember.computeIfAbsent(p.member(), k -> new ArrayList<>()).add(i);
        }

        // lost
        long lost = 0;
        for (String group : new TreeSet<>(groups)) {
            for (Map.Entry<Integer, Long> e : new TreeMap<>(logEnd).entrySet()) {
                Set<Long> seen = new HashSet<>();
                for (int i : byPartition.getOrDefault(key(group, e.getKey()), List.of())) {
                    seen.add(ordered.get(i).offset());
                }
                long missing = 0;
                long firstMissing = -1;
                for (long o = 0; o < e.getValue(); o++) {
                    if (!seen.contains(o)) {
                        missing++;
                        firstMissing = firstMissing < 0 ? o : firstMissing;
                    }
                }
                if (missing > 0) {
                    problems.add(
                            "lost",
                            "group " + group + " partition " + e.getKey() + ": " + missing
                                    + " records never processed, first at offset " + firstMissing);
                }
                lost += missing;
            }
        }

        // overlaps of ownership, and processing outside ownership
        long overlaps = 0;
        Map<String, List<Ownership>> ownedByPartition = new HashMap<>();
        Map<String, List<Ownership>> ownedByMemberPartition = new HashMap<>();
        for (Ownership o : ownerships) {
            ownedByPartition
                    .computeIfAbsent(key(o.group(), o.partition()), k -> new ArrayList<>())
                    .add(o);
            ownedByMemberPartition
                    .computeIfAbsent(key(o.group(), o.partition()) + "/" + o.member(), k -> new ArrayList<>())
                    .add(o);
        }
        // zombie batches: their overlap is measured, not counted (outside the promise); nothing else is excused
        ZombieOverlaps.Result zombies = ZombieOverlaps.measure(
                ownerships, faults, ordered, byMemberPartition, explainMillis, EXPLAIN_SLACK_MILLIS);
        notes.addAll(zombies.notes());
        for (Ownership z : zombies.excused().keySet()) { // pairs with a zombie interval; the rest are swept below
            for (Ownership o : ownedByPartition.get(key(z.group(), z.partition()))) {
                if (o.member().equals(z.member())
                        || (zombies.excused().containsKey(o) && o.fromMillis() < z.fromMillis())) {
                    continue; // a pair of two zombie intervals is judged once, from the earlier one
                }
                Ownership earlier = o.fromMillis() < z.fromMillis() ? o : z;
                Ownership later = earlier == o ? z : o;
                if (later.fromMillis() < earlier.toMillis()
                        && later.fromMillis() >= earlier.fromMillis()
                        && !zombies.excuses(earlier, later)) {
                    overlaps++;
                    problems.add(
                            "overlap",
                            key(z.group(), z.partition()) + " owned by " + earlier.member() + " ["
                                    + earlier.fromMillis() + ", " + earlier.toMillis() + "] and " + later.member()
                                    + " from "
                                    + later.fromMillis());
                }
            }
        }
        int phantoms = 0;
        for (Map.Entry<String, List<Ownership>> e : new TreeMap<>(ownedByPartition).entrySet()) {
            List<Ownership> list = new ArrayList<>();
            for (Ownership o : e.getValue()) {
                if (zombies.excused().containsKey(o)) {
                    continue; // measured above
                }
                if (o.toMillis() <= o.fromMillis() && o.end() != End.REVOKED) {
                    // told assigned and lost within one poll() call: user code could not touch the partition (any
                    // record it processed anyway is caught below, outside its ownership)
                    phantoms++;
                    if (phantoms <= MAX_MESSAGES) {
                        notes.add(e.getKey() + ": " + o.member() + " was told it owned it at " + o.fromMillis()
                                + " and lost it within the same poll() call");
                    }
                    continue;
                }
                list.add(o);
            }
            list.sort(Comparator.comparingLong(Ownership::fromMillis));
            Ownership longest = null;
            for (Ownership cur : list) {
                if (longest != null
                        && cur.fromMillis() < longest.toMillis()
                        && !cur.member().equals(longest.member())) {
                    overlaps++;
                    problems.add(
                            "overlap",
                            e.getKey() + " owned by " + longest.member() + " [" + longest.fromMillis() + ", "
                                    + longest.toMillis() + "] and " + cur.member() + " from " + cur.fromMillis());
                }
                if (longest == null || cur.toMillis() > longest.toMillis()) {
                    longest = cur;
                }
            }
        }
        for (Processed p : ordered) {
            boolean covered =
                    ownedByMemberPartition
                            .getOrDefault(key(p.group(), p.partition()) + "/" + p.member(), List.of())
                            .stream()
                            .anyMatch(o -> o.fromMillis() <= p.atMillis() && p.doneMillis() <= o.toMillis());
            if (!covered) {
                overlaps++;
                problems.add(
                        "outside",
                        key(p.group(), p.partition()) + " offset " + p.offset() + " processed by " + p.member() + " ["
                                + p.atMillis() + ", " + p.doneMillis() + "] outside its ownership");
            }
        }

        if (phantoms > 0) {
            notes.add("phantom assignments: " + phantoms + " (assigned and lost within one poll() call)");
        }

        // bound: what crashes and losses may replay, and revocations of members a fault had cut off (a member that
        // leaves gracefully while cut off is told "revoked", but its final commit fails: at-least-once)
        Set<Integer> replayable = new HashSet<>();
        for (Fault f : faults) {
            if (f.crash()) {
                for (int i : byMember.getOrDefault(f.member(), List.of())) {
                    long at = ordered.get(i).atMillis();
                    if (at >= f.atMillis() - uncommittedWindowMillis && at <= f.atMillis() + uncommittedWindowMillis) {
                        replayable.add(i);
                    }
                }
            }
        }
        Map<String, List<CommittedSample>> samples = new HashMap<>();
        for (CommittedSample s : ledger.committedSamples()) {
            samples.computeIfAbsent(key(s.group(), s.partition()), k -> new ArrayList<>())
                    .add(s);
        }
        samples.values().forEach(l -> l.sort(Comparator.comparingLong(CommittedSample::atMillis)));
        // a member's own report of stopping without commit exposes it as a fault that hit it would
        List<Fault> exposures = new ArrayList<>(faults);
        for (ChaosLedger.Stop st : ledger.stops()) {
            exposures.add(new Fault(STOPPED, st.member(), st.atMillis(), false, Set.of(st.member())));
        }
        if (!ledger.stops().isEmpty()) {
            notes.add("members' reports of partitions stopped without commit: "
                    + ledger.stops().size());
        }
        int unexplainedLosses = 0;
        int byOwnReport = 0;
        for (Ownership o : ownerships) {
            Optional<Fault> why = exposures.stream()
                    .filter(f -> f.exposed().contains(o.member())
                            && f.atMillis() - EXPLAIN_SLACK_MILLIS <= o.toMillis()
                            && o.toMillis() <= f.atMillis() + explainMillis)
                    .findFirst();
            if (why.isEmpty()) {
                if (o.end() == End.REVOKED) {
                    continue; // a graceful revocation commits its final offsets: nothing of it may be replayed
                }
                unexplainedLosses++;
                if (unexplainedLosses <= MAX_MESSAGES) {
                    notes.add(key(o.group(), o.partition()) + " of " + o.member() + " ended " + o.end() + " at "
                            + o.toMillis() + " with no fault exposing it: its replays are not in the bound");
                }
                continue;
            }
            if (why.get().kind().equals(STOPPED)) {
                byOwnReport++; // faults come first: no fault explains it
            }
            // its last commit happened before anyone else could take the partition: sample no later than that
            long handedOver = ownedByPartition.getOrDefault(key(o.group(), o.partition()), List.of()).stream()
                    .filter(n -> !n.member().equals(o.member()) && n.fromMillis() >= o.fromMillis())
                    .mapToLong(Ownership::fromMillis)
                    .min()
                    .orElse(Long.MAX_VALUE);
            long committed = committedAt(
                    samples.getOrDefault(key(o.group(), o.partition()), List.of()), Math.min(o.toMillis(), handedOver));
            for (int i : byMemberPartition.getOrDefault(key(o.group(), o.partition()) + "/" + o.member(), List.of())) {
                Processed p = ordered.get(i);
                if (p.atMillis() >= o.fromMillis() && p.atMillis() <= o.toMillis() && p.offset() >= committed) {
                    replayable.add(i);
                }
            }
        }
        if (byOwnReport > 0) {
            notes.add("intervals no fault explains, bounded by their member's own report of stopping without commit: "
                    + byOwnReport);
        }
        if (unexplainedLosses > MAX_MESSAGES) {
            notes.add("... and " + (unexplainedLosses - MAX_MESSAGES) + " more losses with no fault exposing them");
        }

        // late notices: the member's user code was told after the next owner had started (it was inside poll())
        int late = 0;
        long maxLate = 0;
        int zombieLate = 0;
        for (Ownership o : ownerships) {
            if (zombies.heldUp().contains(o)) {
                zombieLate++; // a zombie's polling thread is held by its batch: it hears of losses late by definition
                continue;
            }
            long next = ownedByPartition.getOrDefault(key(o.group(), o.partition()), List.of()).stream()
                    .filter(n -> !n.member().equals(o.member()) && n.fromMillis() >= o.toMillis())
                    .mapToLong(Ownership::fromMillis)
                    .min()
                    .orElse(Long.MAX_VALUE);
            if (o.notifiedMillis() > next) {
                late++;
                maxLate = Math.max(maxLate, o.notifiedMillis() - next);
                if (late <= MAX_MESSAGES) {
                    notes.add(key(o.group(), o.partition()) + ": " + o.member() + " was told " + o.end() + " at "
                            + o.notifiedMillis() + ", " + (o.notifiedMillis() - next) + " ms after the next owner "
                            + "started; it had been inside poll() since " + o.toMillis());
                }
            }
        }
        if (late > 0) {
            notes.add("late notices: " + late + " (at most " + maxLate + " ms after the next owner started)");
        }
        if (zombieLate > 0) {
            notes.add("notices to zombies, late by definition (not counted above): " + zombieLate);
        }

        // duplicates, net of replays after resets; each must repeat a replayable record
        long duplicates = 0;
        long unexplained = 0;
        Map<String, List<Reset>> resetsByPartition = new HashMap<>();
        for (Reset r : resets) {
            resetsByPartition
                    .computeIfAbsent(key(r.group(), r.partition()), k -> new ArrayList<>())
                    .add(r);
        }
        long adoptedAbove = 0; // resets whose replay began with a repeat outside [target, old offset)
        for (Map.Entry<String, List<Integer>> e : byPartition.entrySet()) {
            List<Integer> indices = e.getValue();
            Map<Integer, List<Reset>> adoptedAt = new HashMap<>();
            for (Reset r : resetsByPartition.getOrDefault(e.getKey(), List.of())) {
                Map<Long, Integer> lastOf = new HashMap<>(); // offset -> its latest processing so far
                Map<String, Integer> firstRepeat = new HashMap<>(); // per member, since the reset began
                for (int i : indices) {
                    Processed p = ordered.get(i);
                    // The reset clears the done set: the owner replays from the target up to the highest offset it
                    // had processed, in any order of keys, so its first repeat may lie above the old offset. The
                    // adoption is confirmed by a repeat inside [target, old offset) — only a reset sends the owner
                    // below its committed offset (a reset to where it was: any repeat at or above the target; the
                    // old offset unknown: the target itself) — and is that member's first repeat at or above the
                    // target since the reset began of a record it had processed itself in the same ownership
                    // interval (only an adoption makes an owner redo its own work within one claim; a new owner
                    // replaying its predecessor's records since the last commit has not adopted anything yet). The
                    // old progress may still finish records for the first time while the reset is planned and
                    // written: those are not repeats.
                    Integer last = p.offset() >= r.offset() ? lastOf.get(p.offset()) : null;
                    boolean repeat = last != null;
                    lastOf.put(p.offset(), i);
                    if (p.atMillis() < r.startedMillis()) {
                        continue;
                    }
                    if (repeat && ownWorkRedone(ordered.get(last), p, ownedByMemberPartition)) {
                        firstRepeat.putIfAbsent(p.member(), i);
                    }
                    boolean confirms = r.from() == Long.MAX_VALUE
                            ? p.offset() == r.offset()
                            : repeat && (p.offset() < r.from() || r.from() <= r.offset());
                    if (confirms) {
                        int at = Math.min(i, firstRepeat.getOrDefault(p.member(), i));
                        if (at != i) {
                            adoptedAbove++;
                        }
                        adoptedAt.computeIfAbsent(at, k -> new ArrayList<>()).add(r); // the owner went back to it
                        break;
                    }
                }
            }
            Map<Long, List<Integer>> since = new HashMap<>();
            for (int i : indices) {
                for (Reset r : adoptedAt.getOrDefault(i, List.of())) {
                    since.keySet().removeIf(o -> o >= r.offset()); // replays from the reset target on are expected
                }
                Processed p = ordered.get(i);
                List<Integer> earlier = since.computeIfAbsent(p.offset(), k -> new ArrayList<>());
                if (!earlier.isEmpty()) {
                    duplicates++;
                    if (earlier.stream().noneMatch(replayable::contains)
                            && !zombies.lateIndices().contains(i)) {
                        unexplained++;
                        Processed first = ordered.get(earlier.get(0));
                        problems.add(
                                "unexplained",
                                e.getKey() + " offset " + p.offset() + " processed again by "
                                        + p.member() + " at " + p.atMillis() + " (first by " + first.member() + " at "
                                        + first.atMillis() + "), not after a crash or loss of that member");
                    }
                }
                earlier.add(i);
            }
        }

        if (adoptedAbove > 0) {
            notes.add("resets whose replay began with a repeat outside [target, old offset) (adopted there): "
                    + adoptedAbove);
        }
        // committed offsets never move backwards except to (or past) a reset's target written in between: after the
        // earlier sample's read began (it may have been answered before the write and returned after the admin call)
        long backwards = 0;
        int slowReads = 0; // moves back matched to a reset only through the earlier sample's slow read
        for (Map.Entry<String, List<CommittedSample>> e : new TreeMap<>(samples).entrySet()) {
            CommittedSample before = null;
            for (CommittedSample s : e.getValue()) {
                if (before != null && s.offset() < before.offset()) {
                    CommittedSample b = before;
                    boolean byReset = resetsByPartition.getOrDefault(e.getKey(), List.of()).stream()
                            .anyMatch(r -> r.offset() <= s.offset()
                                    && r.startedMillis() <= s.atMillis() + SAMPLE_SLACK_MILLIS
                                    && r.atMillis() >= b.readMillis() - SAMPLE_SLACK_MILLIS);
                    if (byReset
                            && resetsByPartition.getOrDefault(e.getKey(), List.of()).stream()
                                    .noneMatch(r -> r.offset() <= s.offset()
                                            && r.startedMillis() <= s.atMillis() + SAMPLE_SLACK_MILLIS
                                            && r.atMillis() >= b.atMillis() - SAMPLE_SLACK_MILLIS)) {
                        slowReads++;
                    }
                    if (!byReset) {
                        backwards++;
                        problems.add(
                                "backwards",
                                e.getKey() + ": committed offset moved back from " + b.offset() + " (at " + b.atMillis()
                                        + ") to " + s.offset() + " at " + s.atMillis());
                    }
                }
                before = s;
            }
        }
        if (slowReads > 0) {
            notes.add("moves back matched to a reset written while the earlier sample's read was out: " + slowReads);
        }
        // the sink: late writes of former owners, and whether the fencing token refused them
        FencingCheck.Result fencing = FencingCheck.judge(ledger.sinkOps());
        fencing.problems().forEach(p -> problems.add("fencing", p));
        if (fencing.untokened() > 0) {
            notes.add("writes made with no fencing token (batch read under no claim, refused): " + fencing.untokened());
        }
        Zombies z = new Zombies(
                zombies.longestMillis(),
                zombies.records(),
                fencing.lateWrites(),
                fencing.lateRefused(),
                fencing.violations());
        // every offset's effect landed: a write of it accepted by the sink (a group that wrote to it)
        long unwritten = unwritten(ledger.sinkOps(), groups, logEnd, problems);
        // per-key order within one claim
        KeyOrderCheck.Result keyOrder = KeyOrderCheck.judge(ordered, ownerships, resets, RESET_ADOPT_MILLIS);
        for (String p : keyOrder.problems()) {
            if (keyOrderPromised) {
                problems.add("key-order", p);
            } else {
                notes.add("key order (not promised): " + p);
            }
        }
        long outlived = 0; // records of a claim whose handler still ran when its member claimed the partition again
        for (Processed p : ordered) {
            if (p.token() != ChaosLedger.SinkOp.NO_TOKEN
                    && ownedByMemberPartition
                            .getOrDefault(key(p.group(), p.partition()) + "/" + p.member(), List.of())
                            .stream()
                            .anyMatch(o -> o.token() != ChaosLedger.SinkOp.NO_TOKEN
                                    && o.token() != p.token()
                                    && o.fromMillis() > p.atMillis()
                                    && o.fromMillis() < p.doneMillis())) {
                outlived++;
            }
        }
        if (outlived > 0) {
            notes.add("records whose handler still ran when their member claimed the partition again (judged "
                    + "under their own claim): " + outlived);
        }
        if (keyOrder.excusedByReset() > 0) {
            notes.add("key-order pairs after a reset (the owner went back; not counted): " + keyOrder.excusedByReset());
        }
        return new Report(
                seed,
                faults.size(),
                ordered.size(),
                lost,
                overlaps,
                duplicates,
                replayable.size(),
                unexplained,
                backwards,
                unwritten,
                z,
                keyOrder.violations(),
                keyOrderPromised,
                problems.list(),
                notes);
    }

    /**
     * Offsets in {@code [0, logEnd)} of a group that wrote to the run's sink of which no write was accepted: processed
     * (or not) but never delivered. A zombie's refused write does not deliver its record — its successor must process
     * it again — so this catches what <b>lost</b> cannot: an old claim's completion counted as done by the claim after
     * it (the offset skipped, committed, and its only write refused). Groups without sink writes are not judged.
     */
    private static long unwritten(
            List<ChaosLedger.SinkOp> ops, Set<String> groups, Map<Integer, Long> logEnd, Messages problems) {
        Map<String, Set<Long>> accepted = new HashMap<>();
        Set<String> writing = new HashSet<>();
        for (ChaosLedger.SinkOp op : ops) {
            if (op.action() == ChaosLedger.SinkAction.WRITE) {
                writing.add(op.group());
                if (op.accepted()) {
                    accepted.computeIfAbsent(key(op.group(), op.partition()), k -> new HashSet<>())
                            .add(op.offset());
                }
            }
        }
        long unwritten = 0;
        for (String group : new TreeSet<>(groups)) {
            if (!writing.contains(group)) {
                continue;
            }
            for (Map.Entry<Integer, Long> e : new TreeMap<>(logEnd).entrySet()) {
                Set<Long> done = accepted.getOrDefault(key(group, e.getKey()), Set.of());
                long missing = 0;
                long first = -1;
                for (long o = 0; o < e.getValue(); o++) {
                    if (!done.contains(o)) {
                        missing++;
                        first = first < 0 ? o : first;
                    }
                }
                if (missing > 0) {
                    problems.add(
                            "unwritten",
                            "group " + group + " partition " + e.getKey() + ": " + missing
                                    + " records never written to the sink under a valid token, first at offset "
                                    + first);
                }
                unwritten += missing;
            }
        }
        return unwritten;
    }

    /**
     * Whether {@code again} repeats {@code before}, a processing of the same member in the same ownership interval of
     * the same claim: its own work redone.
     */
    private static boolean ownWorkRedone(
            Processed before, Processed again, Map<String, List<Ownership>> ownedByMemberPartition) {
        if (!before.member().equals(again.member())) {
            return false;
        }
        return ownedByMemberPartition
                .getOrDefault(key(again.group(), again.partition()) + "/" + again.member(), List.of())
                .stream()
                .anyMatch(o -> o.sameClaim(before.token())
                        && o.sameClaim(again.token())
                        && o.fromMillis() <= before.atMillis()
                        && again.atMillis() <= o.toMillis());
    }

    /** The committed offset last sampled at or before {@code atMillis}; everything counts when none was. */
    private static long committedAt(List<CommittedSample> samples, long atMillis) {
        long committed = Long.MIN_VALUE;
        for (CommittedSample s : samples) {
            if (s.atMillis() > atMillis) {
                break;
            }
            committed = s.offset();
        }
        return committed;
    }

    private static String key(String group, int partition) {
        return group + "/" + partition;
    }

    /** Problem messages, at most {@link #MAX_MESSAGES} per kind (the counts in the report stay exact). */
    private static final class Messages {
        private final Map<String, List<String>> byKind = new LinkedHashMap<>();
        private final Map<String, Integer> counts = new HashMap<>();

        void add(String kind, String message) {
            int n = counts.merge(kind, 1, Integer::sum);
            if (n <= MAX_MESSAGES) {
                byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(message);
            }
        }

        List<String> list() {
            List<String> out = new ArrayList<>();
            byKind.forEach((kind, messages) -> {
                out.addAll(messages);
                int more = counts.get(kind) - messages.size();
                if (more > 0) {
                    out.add("... and " + more + " more (" + kind + ")");
                }
            });
            return out;
        }
    }
}
