package io.groupkeeper.testkit.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The shortest failing schedule we can find: drops faults one at a time, keeping each removal after which the run
 * (same seed, so the same interleaving choices as far as they go) still violates an invariant. Greedy, like
 * delta debugging's one-minimal pass: no single fault of the result can be dropped.
 */
final class Shrinker {

    private Shrinker() {}

    static Simulation.Result shrink(Simulation.Result failing) {
        Simulation.Result best = failing;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int i = 0; i < best.plan().size(); i++) {
                List<Fault> fewer = new ArrayList<>(best.plan());
                fewer.remove(i);
                Simulation.Result r = new Simulation(best.seed(), fewer)
                        .silentCuts(best.silentCuts())
                        .run();
                if (r.failed()) {
                    best = r;
                    progress = true;
                    break;
                }
            }
        }
        return best;
    }
}
