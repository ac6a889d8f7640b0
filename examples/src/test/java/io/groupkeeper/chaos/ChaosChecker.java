package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.CommittedSample;
import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.Reset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges a chaos run:
 * <ul>
 *   <li><b>lost</b>: offsets in {@code [0, logEnd)} of a partition never processed by any member of a group;</li>
 *   <li><b>overlaps</b>: two members' ownership intervals of one partition of one group that intersect (I1), and
 *   records processed by a member outside every interval in which it owned the partition;</li>
 *   <li><b>duplicates</b>: processings beyond the first of an offset, not explained by an admin reset (a reset to
 *   {@code r} replays offsets from {@code r} on); the <b>bound</b> is what crashes may replay: for every crash
 *   fault, the records the crashed member processed in the uncommitted window before it;</li>
 *   <li><b>backwards</b>: a committed offset that moved back, other than to a reset's target.</li>
 * </ul>
 */
public final class ChaosChecker {

    /** The verdict, and the one summary line a run prints. */
    public record Report(long seed, int faults, long records, long lost, long overlaps, long duplicates, long bound,
                         long backwards, List<String> problems) {

        public boolean ok() {
            return lost == 0 && overlaps == 0 && backwards == 0 && duplicates <= bound;
        }

        public String summary() {
            return "chaos seed=" + seed + " faults=" + faults + " records=" + records + " lost=" + lost + " overlaps="
                    + overlaps + " duplicates=" + duplicates + " (bound " + bound + ")"
                    + (backwards > 0 ? " backwards=" + backwards : "");
        }
    }

    private final long uncommittedWindowMillis;

    /** @param uncommittedWindowMillis the commit interval plus the longest a polled batch may take to process */
    public ChaosChecker(long uncommittedWindowMillis) {
        this.uncommittedWindowMillis = uncommittedWindowMillis;
    }

    public Report check(long seed, ChaosLedger ledger, Set<String> groups, Map<Integer, Long> logEnd) {
        List<String> problems = new ArrayList<>();
        List<Processed> processed = ledger.processed();
        List<Reset> resets = ledger.resets();

        // lost
        long lost = 0;
        Map<String, Map<Integer, Map<Long, Integer>>> counts = new HashMap<>();
        for (Processed p : processed) {
            counts.computeIfAbsent(p.group(), g -> new HashMap<>()).computeIfAbsent(p.partition(), k -> new HashMap<>())
                    .merge(p.offset(), 1, Integer::sum);
        }
        for (String group : groups) {
            for (Map.Entry<Integer, Long> e : logEnd.entrySet()) {
                Map<Long, Integer> seen = counts.getOrDefault(group, Map.of()).getOrDefault(e.getKey(), Map.of());
                long missing = 0;
                long firstMissing = -1;
                for (long o = 0; o < e.getValue(); o++) {
                    if (!seen.containsKey(o)) {
                        missing++;
                        firstMissing = firstMissing < 0 ? o : firstMissing;
                    }
                }
                if (missing > 0) {
                    problems.add("group " + group + " partition " + e.getKey() + ": " + missing
                            + " records never processed, first at offset " + firstMissing);
                }
                lost += missing;
            }
        }

        // overlaps of ownership, and processing outside ownership
        long overlaps = 0;
        Map<String, List<Ownership>> byPartition = new HashMap<>();
        for (Ownership o : ledger.ownerships()) {
            byPartition.computeIfAbsent(o.group() + "/" + o.partition(), k -> new ArrayList<>()).add(o);
        }
        for (Map.Entry<String, List<Ownership>> e : byPartition.entrySet()) {
            List<Ownership> list = new ArrayList<>(e.getValue());
            list.sort(Comparator.comparingLong(Ownership::fromMillis));
            Ownership longest = null;
            for (Ownership cur : list) {
                if (longest != null && cur.fromMillis() < longest.toMillis() && !cur.member().equals(longest.member())) {
                    overlaps++;
                    problems.add(e.getKey() + " owned by " + longest.member() + " [" + longest.fromMillis() + ", "
                            + longest.toMillis() + "] and " + cur.member() + " from " + cur.fromMillis());
                }
                if (longest == null || cur.toMillis() > longest.toMillis()) {
                    longest = cur;
                }
            }
        }
        for (Processed p : processed) {
            boolean covered = byPartition.getOrDefault(p.group() + "/" + p.partition(), List.of()).stream()
                    .anyMatch(o -> o.member().equals(p.member()) && o.fromMillis() <= p.atMillis()
                            && p.atMillis() <= o.toMillis());
            if (!covered) {
                overlaps++;
                problems.add(p.group() + "/" + p.partition() + " offset " + p.offset() + " processed by " + p.member()
                        + " at " + p.atMillis() + " outside its ownership");
            }
        }

        // duplicates, net of replays after resets
        long duplicates = 0;
        Map<String, Set<Long>> seenOnce = new HashMap<>();
        List<Processed> inOrder = new ArrayList<>(processed);
        inOrder.sort(Comparator.comparingLong(Processed::atMillis));
        List<Reset> resetsInOrder = new ArrayList<>(resets);
        resetsInOrder.sort(Comparator.comparingLong(Reset::atMillis));
        int nextReset = 0;
        for (Processed p : inOrder) {
            while (nextReset < resetsInOrder.size() && resetsInOrder.get(nextReset).atMillis() <= p.atMillis()) {
                Reset r = resetsInOrder.get(nextReset++);
                Set<Long> seen = seenOnce.get(r.group() + "/" + r.partition());
                if (seen != null) {
                    seen.removeIf(o -> o >= r.offset()); // replays from the reset target on are expected
                }
            }
            if (!seenOnce.computeIfAbsent(p.group() + "/" + p.partition(), k -> new HashSet<>()).add(p.offset())) {
                duplicates++;
            }
        }

        // bound: what each crashed member processed in the uncommitted window before its crash
        long bound = 0;
        for (Fault f : ledger.faults()) {
            if (f.crash()) {
                long from = f.atMillis() - uncommittedWindowMillis;
                bound += processed.stream().filter(p -> p.member().equals(f.member()) && p.atMillis() >= from
                        && p.atMillis() <= f.atMillis() + uncommittedWindowMillis).count();
            }
        }

        // committed offsets never move backwards except to a reset target
        long backwards = 0;
        Map<String, CommittedSample> last = new HashMap<>();
        List<CommittedSample> samples = new ArrayList<>(ledger.committedSamples());
        samples.sort(Comparator.comparingLong(CommittedSample::atMillis));
        for (CommittedSample s : samples) {
            String key = s.group() + "/" + s.partition();
            CommittedSample before = last.put(key, s);
            if (before != null && s.offset() < before.offset()) {
                boolean byReset = resets.stream().anyMatch(r -> r.group().equals(s.group())
                        && r.partition() == s.partition() && r.offset() == s.offset()
                        && r.atMillis() <= s.atMillis() + 1000);
                if (!byReset) {
                    backwards++;
                    problems.add(key + ": committed offset moved back from " + before.offset() + " to " + s.offset()
                            + " at " + s.atMillis());
                }
            }
        }
        return new Report(seed, ledger.faults().size(), processed.size(), lost, overlaps, duplicates, bound, backwards,
                problems);
    }
}
