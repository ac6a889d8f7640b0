package io.groupkeeper.testkit.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The seeded list of faults of one schedule: a pure function of the seed. */
final class FaultPlan {

    private FaultPlan() {
    }

    static List<Fault> generate(long seed, int faults, long runMillis, long sessionTimeoutMillis) {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        Fault.Kind[] kinds = Fault.Kind.values();
        List<Fault> plan = new ArrayList<>();
        for (int i = 0; i < faults; i++) {
            Fault.Kind kind = kinds[r.nextInt(kinds.length)];
            long at = 200 + (long) (r.nextDouble() * (runMillis - 200));
            long duration = switch (kind) {
                case DISCONNECT -> 100 + r.nextInt((int) (2 * sessionTimeoutMillis));
                case PAUSE -> sessionTimeoutMillis + 200 + r.nextInt((int) sessionTimeoutMillis);
                case STALL -> 100 + r.nextInt((int) (2 * sessionTimeoutMillis));
                case TYPO -> 200 + r.nextInt(4_000);
                default -> 0;
            };
            plan.add(new Fault(kind, at, r.nextInt(1 << 16), r.nextInt(1 << 16), r.nextInt(1 << 16), duration));
        }
        plan.sort(java.util.Comparator.comparingLong(Fault::atMillis));
        return plan;
    }
}
