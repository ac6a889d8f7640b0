package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.Fault;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What zombie batches ({@link ZombieFault}) did after their successors started — measured for the report, and
 * excused from the overlap check, because a paused or cut-off member finishing its batch in hand is outside the
 * promise (docs/reliability.md).
 *
 * <p>An ownership interval is a zombie's when a zombie fault hit its member while it held it (the interval began
 * before the fault and ended after it, within {@code explainMillis}) and another member's interval of the partition
 * began inside it after the fault. Its overlap runs from the first such successor's start to the zombie's end (the
 * entry into the {@code poll()} after its batch); its late records are those it finished processing after the
 * successor started. Only that is excused: an interval that began inside a zombie's before the fault hit, or a
 * zombie's interval that itself began inside another member's, is still an overlap ({@link #excuses}).
 */
final class ZombieOverlaps {

    /**
     * @param excused        the zombie intervals that overlap a successor's (left out of the plain overlap check),
     *                       each with the instant its fault hit
     * @param longestMillis  the longest overlap of one zombie interval with its successor's
     * @param records        records processed by zombies after their successors started
     * @param lateIndices    those records, as indices into the processed list (their repeats are explained)
     * @param heldUp         intervals of members a zombie fault hit, whose end was told after the fault: their
     *                       polling thread was held by the batch, so the notice is late by construction
     * @param notes          one line per zombie interval
     */
    record Result(
            Map<Ownership, Long> excused,
            long longestMillis,
            long records,
            Set<Integer> lateIndices,
            Set<Ownership> heldUp,
            List<String> notes) {

        /** Whether {@code later} starting inside {@code earlier} (another member's) is a zombie's excused overlap. */
        boolean excuses(Ownership earlier, Ownership later) {
            Long hit = excused.get(earlier);
            return hit != null && later.fromMillis() >= hit;
        }
    }

    private ZombieOverlaps() {}

    static Result measure(
            List<Ownership> ownerships,
            List<Fault> faults,
            List<Processed> ordered,
            Map<String, List<Integer>> byMemberPartition,
            long explainMillis,
            long slackMillis) {
        Map<Ownership, Long> excused = new HashMap<>();
        Set<Ownership> heldUp = new HashSet<>();
        Set<Integer> late = new HashSet<>();
        List<String> notes = new ArrayList<>();
        long longest = 0;
        for (Ownership z : ownerships) {
            if (faults.stream()
                    .anyMatch(f -> f.zombie()
                            && f.member().equals(z.member())
                            && z.fromMillis() <= f.atMillis() + slackMillis
                            && z.notifiedMillis() >= f.atMillis()
                            && z.notifiedMillis() <= f.atMillis() + explainMillis)) {
                heldUp.add(z);
            }
            Optional<Fault> hit = faults.stream()
                    .filter(f -> f.zombie()
                            && f.member().equals(z.member())
                            && z.fromMillis() <= f.atMillis() + slackMillis
                            && z.toMillis() >= f.atMillis()
                            && z.toMillis() <= f.atMillis() + explainMillis)
                    .findFirst();
            if (hit.isEmpty()) {
                continue;
            }
            long faultAt = hit.get().atMillis();
            Optional<Ownership> successor = ownerships.stream()
                    .filter(n -> n.group().equals(z.group())
                            && n.partition() == z.partition()
                            && !n.member().equals(z.member())
                            && n.fromMillis() >= Math.max(z.fromMillis(), faultAt)
                            && n.fromMillis() < z.toMillis())
                    .min((x, y) -> Long.compare(x.fromMillis(), y.fromMillis()));
            if (successor.isEmpty()) {
                // its batch was done before anyone took over: no overlap, judged as any interval
                notes.add(z.group() + "/" + z.partition() + ": zombie " + z.member() + " held it until " + z.toMillis()
                        + " (" + (z.toMillis() - faultAt) + " ms after the fault); nobody had taken it over by then");
                continue;
            }
            excused.put(z, faultAt);
            long from = successor.get().fromMillis();
            long records = 0;
            for (int i :
                    byMemberPartition.getOrDefault(z.group() + "/" + z.partition() + "/" + z.member(), List.of())) {
                Processed p = ordered.get(i);
                if (p.atMillis() >= z.fromMillis() && p.atMillis() <= z.toMillis() && p.doneMillis() > from) {
                    late.add(i);
                    records++;
                }
            }
            longest = Math.max(longest, z.toMillis() - from);
            notes.add(z.group() + "/" + z.partition() + ": zombie " + z.member() + " held it until " + z.toMillis()
                    + ", " + (z.toMillis() - from) + " ms after "
                    + successor.get().member() + " started; "
                    + records + " records processed after that");
        }
        return new Result(excused, longest, late.size(), late, heldUp, notes);
    }
}
