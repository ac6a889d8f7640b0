package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.Reset;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-key order within one claim (the {@code KEY} and {@code PARTITION} orderings, docs/parallel.md): in one
 * ownership interval of one member, the records of one key are processed one at a time, in offset order. A record
 * belongs to the interval of its member that contains it and is of the claim it was processed under (its fencing
 * token, when both are known): a handler of an old claim still running after its member claimed the partition again
 * is a zombie of the old claim (its writes are the fencing check's), not a second record of the new one. For every
 * two processings of a key in a row (by start), the later one must start at or after the earlier one finished, and
 * have a higher offset. A pair is a <b>violation</b> otherwise, unless an admin reset of the partition was written
 * between them (the owner adopts the reset and starts again from its target: a new progress, whose records may repeat
 * and overlap the old one's in flight); those are counted apart as <b>excused</b>. Records without a key share one
 * lane, as in the container. Processings outside every ownership of their member are the overlap check's, not
 * this one's.
 */
final class KeyOrderCheck {

    /** The outcome: violations (fail the run where order is promised), pairs excused by a reset, messages. */
    record Result(long violations, long excusedByReset, List<String> problems) {}

    private static final int MAX_MESSAGES = 20;

    private KeyOrderCheck() {}

    /**
     * @param processed   every processing, sorted by start, ties in the ledger's (completion) order
     * @param adoptMillis how long after a reset is written its owner may still be on the old progress
     */
    static Result judge(List<Processed> processed, List<Ownership> ownerships, List<Reset> resets, long adoptMillis) {
        Map<String, List<Ownership>> owned = new HashMap<>();
        for (Ownership o : ownerships) {
            owned.computeIfAbsent(o.group() + "/" + o.partition() + "/" + o.member(), k -> new ArrayList<>())
                    .add(o);
        }
        Map<String, List<Reset>> resetsOf = new HashMap<>();
        for (Reset r : resets) {
            resetsOf.computeIfAbsent(r.group() + "/" + r.partition(), k -> new ArrayList<>())
                    .add(r);
        }
        // one sequence per (ownership, key), in the order given
        Map<Ownership, Map<String, List<Processed>>> lanes = new LinkedHashMap<>();
        for (Processed p : processed) {
            for (Ownership o : owned.getOrDefault(p.group() + "/" + p.partition() + "/" + p.member(), List.of())) {
                if (o.sameClaim(p.token()) && o.fromMillis() <= p.atMillis() && p.doneMillis() <= o.toMillis()) {
                    lanes.computeIfAbsent(o, k -> new HashMap<>())
                            .computeIfAbsent(p.key() == null ? "\u0000none" : p.key(), k -> new ArrayList<>())
                            .add(p);
                    break;
                }
            }
        }
        long violations = 0;
        long excused = 0;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Ownership, Map<String, List<Processed>>> e : lanes.entrySet()) {
            Ownership o = e.getKey();
            List<Reset> rs = resetsOf.getOrDefault(o.group() + "/" + o.partition(), List.of());
            for (List<Processed> lane : e.getValue().values()) {
                for (int i = 1; i < lane.size(); i++) {
                    Processed prev = lane.get(i - 1);
                    Processed next = lane.get(i);
                    boolean backwards = next.offset() <= prev.offset();
                    boolean concurrent = next.atMillis() < prev.doneMillis();
                    if (!backwards && !concurrent) {
                        continue;
                    }
                    boolean byReset = rs.stream()
                            .anyMatch(r -> r.startedMillis() <= next.atMillis()
                                    && r.atMillis() >= prev.atMillis() - adoptMillis
                                    && next.offset() >= r.offset());
                    if (byReset) {
                        excused++;
                        continue;
                    }
                    violations++;
                    if (problems.size() < MAX_MESSAGES) {
                        problems.add(o.group() + "/" + o.partition() + " key " + next.key() + " of " + o.member()
                                + ": offset " + next.offset() + " started at " + next.atMillis()
                                + (backwards ? " after offset " : " before the end of offset ") + prev.offset()
                                + " [" + prev.atMillis() + ", " + prev.doneMillis() + "]"
                                + (o.token() == SinkOp.NO_TOKEN ? "" : " under token " + o.token()));
                    }
                }
            }
        }
        if (violations > MAX_MESSAGES) {
            problems.add("... and " + (violations - MAX_MESSAGES) + " more (key order)");
        }
        return new Result(violations, excused, problems);
    }
}
