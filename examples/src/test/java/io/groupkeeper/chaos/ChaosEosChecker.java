package io.groupkeeper.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The judge of a transactional chaos run ({@link ChaosEosIT}): every group transforms the input topic into an output
 * topic of its own, one output per input record with the value {@code {"topic":T,"partition":P,"offset":O}} (as the
 * examples' {@code transform} command writes it). Given every output value a {@code read_committed} reader found and
 * the input's log ends, each input offset below its partition's log end must be in each group's output exactly once:
 * none missing ({@code lost}), none more than once ({@code duplicates}: extra copies), none beyond a log end and
 * nothing unreadable ({@code foreign}).
 */
final class ChaosEosChecker {

    private static final Pattern VALUE =
            Pattern.compile("\\{\"topic\":\"([^\"]+)\",\"partition\":(\\d+),\"offset\":(\\d+)}");

    /** The verdict; {@link #summary()} is the run's last line. */
    record Report(long seed, int faults, long inputs, long lost, long duplicates, long foreign, List<String> problems) {

        boolean ok() {
            return lost == 0 && duplicates == 0 && foreign == 0;
        }

        String summary() {
            return "chaos-eos seed=" + seed + " faults=" + faults + " inputs=" + inputs + " lost=" + lost
                    + " duplicates=" + duplicates + (foreign > 0 ? " foreign=" + foreign : "");
        }
    }

    private static final int MAX_PROBLEMS = 30;

    private ChaosEosChecker() {}

    /**
     * @param topic   the input topic
     * @param logEnds the input's log end per partition
     * @param outputs per group, every value its output topic holds for {@code read_committed} readers, in any order
     */
    static Report check(
            long seed, int faults, String topic, Map<Integer, Long> logEnds, Map<String, List<String>> outputs) {
        long inputs = 0;
        long lost = 0;
        long duplicates = 0;
        long foreign = 0;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, List<String>> g : outputs.entrySet()) {
            Map<Integer, Map<Long, Integer>> seen = new HashMap<>();
            for (String v : g.getValue()) {
                Matcher m = v == null ? null : VALUE.matcher(v);
                if (m == null || !m.matches() || !m.group(1).equals(topic)) {
                    foreign++;
                    note(problems, g.getKey() + ": unreadable output " + v);
                    continue;
                }
                int p = Integer.parseInt(m.group(2));
                long o = Long.parseLong(m.group(3));
                Long end = logEnds.get(p);
                if (end == null || o >= end) {
                    foreign++;
                    note(problems, g.getKey() + ": output for " + p + "/" + o + " beyond the log end " + end);
                    continue;
                }
                seen.computeIfAbsent(p, k -> new HashMap<>()).merge(o, 1, Integer::sum);
            }
            for (Map.Entry<Integer, Long> e : logEnds.entrySet()) {
                Map<Long, Integer> counts = seen.getOrDefault(e.getKey(), Map.of());
                for (long o = 0; o < e.getValue(); o++) {
                    inputs++;
                    int n = counts.getOrDefault(o, 0);
                    if (n == 0) {
                        lost++;
                        note(problems, g.getKey() + ": input " + e.getKey() + "/" + o + " is not in the output");
                    } else if (n > 1) {
                        duplicates += n - 1;
                        note(
                                problems,
                                g.getKey() + ": input " + e.getKey() + "/" + o + " is in the output " + n + " times");
                    }
                }
            }
        }
        return new Report(seed, faults, inputs, lost, duplicates, foreign, List.copyOf(problems));
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }

    /** The output value of one input record, as the {@code transform} command writes it. */
    static String value(String topic, int partition, long offset) {
        return "{\"topic\":\"" + topic + "\",\"partition\":" + partition + ",\"offset\":" + offset + "}";
    }
}
