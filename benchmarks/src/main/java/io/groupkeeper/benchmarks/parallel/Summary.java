package io.groupkeeper.benchmarks.parallel;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run's last line: records/s of every contender per scenario, the scale-out's records processed twice, and the
 * groupkeeper contenders' ZooKeeper transactions per second in the first scenario, and the largest offset-node done value
 * against its bound:
 * <pre>
 * summary: p1-k10000 kafka-loop=99 pc-key=… gk-key=… | p1-k8 … | scale-out processed twice: pc-key=… gk-key=0 |
 *          zk tx/s p1-k10000: gk-partition=1.0 gk-key=1.0 gk-unordered=1.0 |
 *          done value: largest 212 chars, bound 1262 (max span 10000)
 * </pre>
 */
final class Summary {

    private Summary() {}

    static String line(
            List<Map<String, Object>> results, List<Map<String, Object>> scaleOut, Map<String, Object> done) {
        Map<String, StringBuilder> perScenario = new LinkedHashMap<>();
        StringBuilder zk = new StringBuilder();
        String zkScenario = results.isEmpty() ? null : (String) results.get(0).get("scenario");
        for (Map<String, Object> r : results) {
            String scenario = (String) r.get("scenario");
            perScenario
                    .computeIfAbsent(scenario, s -> new StringBuilder(s))
                    .append(' ')
                    .append(r.get("contender"))
                    .append('=')
                    .append(Math.round((Double) r.get("recordsPerSec")));
            if (scenario.equals(zkScenario) && r.containsKey("zkTransactionsPerSec")) {
                zk.append(' ').append(r.get("contender")).append('=').append(r.get("zkTransactionsPerSec"));
            }
        }
        StringBuilder s = new StringBuilder("summary:");
        String sep = " ";
        for (StringBuilder b : perScenario.values()) {
            s.append(sep).append(b);
            sep = " | ";
        }
        if (!scaleOut.isEmpty()) {
            s.append(sep).append("scale-out processed twice:");
            for (Map<String, Object> r : scaleOut) {
                s.append(' ').append(r.get("contender")).append('=').append(r.get("processedTwice"));
                if (!Boolean.TRUE.equals(r.get("handedOver"))) {
                    s.append(" (no handover: the second instance got no records)");
                }
            }
            sep = " | ";
        }
        if (zk.length() > 0) {
            s.append(sep).append("zk tx/s ").append(zkScenario).append(':').append(zk);
        }
        if ((Integer) done.get("largestChars") >= 0) {
            s.append(" | done value: largest ")
                    .append(done.get("largestChars"))
                    .append(" chars, bound ")
                    .append(done.get("boundChars"))
                    .append(" (max span ")
                    .append(done.get("maxSpan"))
                    .append(')');
        }
        return s.toString();
    }
}
