package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import org.slf4j.LoggerFactory;

/**
 * A run of consecutive seeded schedules of one simulation and mode, as {@code AdapterSimulationTest} and
 * {@code ContainerSimulationTest} run them: the first seed and the number of schedules from
 * {@code -Dgroupkeeper.<name>.seed} and {@code .schedules}; {@code .trace=true} prints each schedule's trace;
 * a failing seed fails the run with its replay properties, its shortest failing plan ({@link #shrink}, unless
 * {@code .shrink=false}) and the end of its trace; with {@code .keepGoing=true} the run goes on past failing seeds and
 * lists them after its summary line. The summary line: {@code <title> (<mode>) seed= schedules= steps=}, the counters
 * in the order given, {@code violations=} (failing seeds) and the time taken.
 *
 * @param <R> a schedule's outcome
 */
final class SeededSchedules<R extends ScheduleOutcome> {

    private final String name;
    private final String title;
    private final Object mode;
    private final Map<String, ToLongFunction<R>> counters = new LinkedHashMap<>();

    /**
     * @param name  the simulation's property prefix after {@code groupkeeper.} (e.g. {@code adapterSimulation})
     * @param title the summary line's first words (e.g. {@code adapter simulation})
     * @param mode  the mode, printed in parentheses
     */
    SeededSchedules(String name, String title, Object mode) {
        this.name = name;
        this.title = title;
        this.mode = mode;
    }

    /** A counter of the summary line, summed over the schedules; printed in the order added. */
    SeededSchedules<R> count(String counter, ToLongFunction<R> of) {
        counters.put(counter, of);
        return this;
    }

    /** A figure of the summary line, the largest over the schedules; printed in the order added. */
    SeededSchedules<R> max(String figure, ToLongFunction<R> of) {
        counters.put(figure, of);
        largest.add(figure);
        return this;
    }

    private final java.util.Set<String> largest = new java.util.HashSet<>();

    /**
     * Runs the schedules ({@code run}: a seed's schedule; {@code replay}: the same seed with another plan, for the
     * shrink), prints the summary line and returns the sums of the counters by name.
     */
    Map<String, Long> run(int byDefault, LongFunction<R> run, Function<R, Function<List<Fault>, R>> replay) {
        long first = Long.getLong(property("seed"), 1L);
        int schedules = Integer.getInteger(property("schedules"), byDefault);
        long steps = 0;
        Map<String, Long> sums = new LinkedHashMap<>();
        counters.keySet().forEach(c -> sums.put(c, 0L));
        long started = System.nanoTime();
        boolean keepGoing = Boolean.getBoolean(property("keepGoing"));
        List<String> failing = new ArrayList<>();
        for (long seed = first; seed < first + schedules; seed++) {
            R r = run.apply(seed);
            steps += r.steps();
            counters.forEach((c, of) -> sums.merge(c, of.applyAsLong(r), largest.contains(c) ? Long::max : Long::sum));
            if (Boolean.getBoolean(property("trace"))) {
                System.out.println("seed " + seed + " trace:\n" + r.tail());
            }
            if (r.failed() && keepGoing) { // a long run's census: every failing seed, reported at the end
                failing.add(seed + " " + r.violations().get(0));
                continue;
            }
            if (r.failed()) {
                R shortest = Boolean.parseBoolean(System.getProperty(property("shrink"), "true"))
                        ? shrink(r, replay.apply(r))
                        : r;
                assertThat(r.violations())
                        .as(
                                "%s (%s) seed %d: replay with -D%s=%d -D%s=1\nshortest failing plan (%d of %d faults): "
                                        + "%s\n%s\ntrace of the shortest:\n%s",
                                title,
                                mode,
                                seed,
                                property("seed"),
                                seed,
                                property("schedules"),
                                shortest.plan().size(),
                                r.plan().size(),
                                shortest.plan(),
                                shortest.violations(),
                                shortest.tail())
                        .isEmpty();
            }
        }
        StringBuilder line = new StringBuilder()
                .append(title)
                .append(" (")
                .append(mode)
                .append(") seed=")
                .append(first)
                .append(" schedules=")
                .append(schedules)
                .append(" steps=")
                .append(steps);
        sums.forEach((c, sum) -> line.append(' ').append(c).append('=').append(sum));
        line.append(" violations=")
                .append(failing.size())
                .append(" in ")
                .append((System.nanoTime() - started) / 1_000_000)
                .append(" ms");
        System.out.println(line);
        failing.forEach(f -> System.out.println(title + " (" + mode + ") failing seed " + f));
        assertThat(failing)
                .as("failing seeds (-D%s=true)", property("keepGoing"))
                .isEmpty();
        return sums;
    }

    private String property(String suffix) {
        return "groupkeeper." + name + "." + suffix;
    }

    /**
     * Drops faults one at a time while the schedule (same seed, {@code replay} of a plan) still fails: no single fault
     * of the result can go.
     */
    static <R extends ScheduleOutcome> R shrink(R failing, Function<List<Fault>, R> replay) {
        R best = failing;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int i = 0; i < best.plan().size(); i++) {
                List<Fault> fewer = new ArrayList<>(best.plan());
                fewer.remove(i);
                R r = replay.apply(fewer);
                if (r.failed()) {
                    best = r;
                    progress = true;
                    break;
                }
            }
        }
        return best;
    }

    /**
     * Turns the project's logging off for a test class's schedules (unless {@code -Dgroupkeeper.<name>.log=true}) and
     * returns the level to restore after.
     */
    static Level quiet(String name) {
        Logger gk = (Logger) LoggerFactory.getLogger("io.groupkeeper");
        Level before = gk.getLevel();
        if (!Boolean.getBoolean("groupkeeper." + name + ".log")) {
            gk.setLevel(Level.OFF);
        }
        return before;
    }

    static void restore(Level before) {
        ((Logger) LoggerFactory.getLogger("io.groupkeeper")).setLevel(before);
    }
}
