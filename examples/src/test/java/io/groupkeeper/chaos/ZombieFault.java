package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.Fault;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The zombie batch ({@link ChaosSchedule.Kind#ZOMBIE}): the one combination the rest of the schedule keeps apart — a
 * long batch in flight while the member's network is cut. Its user code blocks on its next record, so the batch stays
 * in hand, and at the same moment its proxy drops everything, for longer than the session timeout: the client
 * reports its partitions lost (but the polling thread is busy and hears of it only at its next {@code poll()}), the
 * servers expire the session, someone else takes the partitions over and starts from the last commit, and the stall
 * outlasts the cut-off — so the zombie finishes its batch after its successor started, writing every record to the
 * sink under its old claim's token. That is the paused process of docs/reliability.md, outside the promise: the
 * checker measures the overlap and the refused writes instead of failing on them.
 *
 * <p>It also remembers whose batch is still in hand, so the run does not pick that member for a leave or a crash
 * meanwhile: either would end the stall at once (seed 705260: two of four zombie batches crashed within 3 s) and the
 * zombie would never outlive its session.
 */
final class ZombieFault {

    /** Member name → when its stall ends. */
    private final Map<String, Long> stallEnds = new ConcurrentHashMap<>();

    /** Injects it into {@code c}: a stall of {@code stallMillis} and, at once, a cut-off of {@code cutOffMillis}. */
    Fault inject(ChaosConsumer c, long cutOffMillis, long stallMillis) {
        Fault f = new Fault(Fault.ZOMBIE, c.name(), System.currentTimeMillis(), false, Set.of(c.name()));
        stallEnds.put(c.name(), f.atMillis() + stallMillis);
        c.stall(stallMillis); // the next record blocks: the batch stays in hand
        c.partition(cutOffMillis); // the network goes with it: the session expires under the held batch
        return f;
    }

    /** Whether {@code c} still holds its zombie batch. */
    boolean inProgress(ChaosConsumer c) {
        Long end = stallEnds.get(c.name());
        return end != null && end > System.currentTimeMillis();
    }
}
