package io.groupkeeper.testkit.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * The seeded list of faults of one schedule: a pure function of the seed (and of the extra kinds switched on).
 *
 * <p>Extra kinds are off by default: they were written to expose bugs (issue 34's bugs 1 and 2, and a failed start
 * that left its member node, and issue 34's finding 3: a claim that lands late), all fixed since, and stay off so that
 * the default schedules stay the same. {@code
 * -Dgroupkeeper.simulation.faults=CLOSE_IN_BLIP,RESTART_IN_PLACE,JOIN_LOST_REPLY,CLAIM_LANDS_LATE} (or {@code all})
 * adds them to the kinds every schedule draws from.
 */
final class FaultPlan {

    /** The kinds that are drawn only when switched on ({@code all}: every one of them). */
    static final Set<Fault.Kind> EXTRA = EnumSet.of(
            Fault.Kind.CLOSE_IN_BLIP,
            Fault.Kind.RESTART_IN_PLACE,
            Fault.Kind.JOIN_LOST_REPLY,
            Fault.Kind.CLAIM_LANDS_LATE);

    /**
     * The extra kinds there were before {@link Fault.Kind#CLAIM_LANDS_LATE} (2026-12-06): what the unkindest run and
     * the seeds pinned from runs with every extra kind draw from, so that their schedules stay the ones recorded in
     * docs/invariants.md (a fourth kind in the draw changes every schedule).
     */
    static final Set<Fault.Kind> EXTRA_BEFORE_LATE_CLAIMS =
            EnumSet.of(Fault.Kind.CLOSE_IN_BLIP, Fault.Kind.RESTART_IN_PLACE, Fault.Kind.JOIN_LOST_REPLY);

    private FaultPlan() {}

    /** The extra kinds switched on by {@code groupkeeper.simulation.faults}. */
    static Set<Fault.Kind> extraKinds() {
        String spec = System.getProperty("groupkeeper.simulation.faults", "").trim();
        Set<Fault.Kind> on = EnumSet.noneOf(Fault.Kind.class);
        if (spec.equalsIgnoreCase("all")) {
            on.addAll(EXTRA);
        } else if (!spec.isEmpty()) {
            for (String name : spec.split(",")) {
                Fault.Kind k =
                        Fault.Kind.valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
                if (!EXTRA.contains(k)) {
                    throw new IllegalArgumentException(
                            "groupkeeper.simulation.faults: " + k + " is always on; extra " + "kinds are " + EXTRA);
                }
                on.add(k);
            }
        }
        return on;
    }

    static List<Fault> generate(
            long seed, int faults, long runMillis, long sessionTimeoutMillis, Set<Fault.Kind> extra) {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        Fault.Kind[] kinds = Arrays.stream(Fault.Kind.values())
                .filter(k -> !EXTRA.contains(k) || extra.contains(k))
                .toArray(Fault.Kind[]::new);
        List<Fault> plan = new ArrayList<>();
        for (int i = 0; i < faults; i++) {
            Fault.Kind kind = kinds[r.nextInt(kinds.length)];
            long at = 200 + (long) (r.nextDouble() * (runMillis - 200));
            long duration = switch (kind) {
                case DISCONNECT -> 100 + r.nextInt((int) (2 * sessionTimeoutMillis));
                case PAUSE -> sessionTimeoutMillis + 200 + r.nextInt((int) sessionTimeoutMillis);
                case STALL -> 100 + r.nextInt((int) (2 * sessionTimeoutMillis));
                case TYPO -> 200 + r.nextInt(4_000);
                case CLOSE_IN_BLIP -> 500 + r.nextInt((int) sessionTimeoutMillis - 600); // the session outlives it
                case CLAIM_LANDS_LATE -> 700 + r.nextInt(600); // how long the follower stays behind: about 1 s
                default -> 0;
            };
            plan.add(new Fault(kind, at, r.nextInt(1 << 16), r.nextInt(1 << 16), r.nextInt(1 << 16), duration));
        }
        plan.sort(java.util.Comparator.comparingLong(Fault::atMillis));
        return plan;
    }
}
