package io.groupkeeper.assignor;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Test oracle, independent of the assignor: the largest number of same-rack assignments a balanced assignment can
 * have when every member has the same subscription, by max flow (source -> partition -> member in a rack holding a
 * replica -> sink with capacity floor(P/M), plus one extra unit for P mod M members through a shared "ceiling" node).
 */
final class RackOracle {

    private RackOracle() {}

    /** The same-rack count of {@code result}. */
    static int local(AssignmentInput input, Assignment result) {
        int local = 0;
        for (Map.Entry<String, MemberSubscription> e : input.members().entrySet()) {
            String rack = e.getValue().rack().orElse(null);
            for (TopicPartition tp : result.partitionsOf(e.getKey())) {
                if (input.partitionRacks().isLocal(tp, rack)) {
                    local++;
                }
            }
        }
        return local;
    }

    /** The maximum same-rack count over balanced assignments; the members must share one subscription. */
    static int maxLocalCommonSubscription(AssignmentInput input) {
        List<String> members = new ArrayList<>(input.members().keySet());
        List<TopicPartition> partitions = new ArrayList<>();
        String anyMember = members.get(0);
        for (String topic : input.members().get(anyMember).topics()) {
            Integer n = input.partitionCounts().get(topic);
            for (int p = 0; n != null && p < n; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
        }
        int m = members.size();
        int p = partitions.size();
        int floor = p / m;
        int extra = p % m;
        // Nodes: 0 source, 1..p partitions, p+1..p+m members, p+m+1 ceiling, p+m+2 sink.
        int n = p + m + 3;
        int source = 0;
        int ceiling = p + m + 1;
        int sink = p + m + 2;
        int[][] cap = new int[n][n];
        for (int i = 0; i < p; i++) {
            cap[source][1 + i] = 1;
            for (int j = 0; j < m; j++) {
                String rack = input.members().get(members.get(j)).rack().orElse(null);
                if (input.partitionRacks().isLocal(partitions.get(i), rack)) {
                    cap[1 + i][1 + p + j] = 1;
                }
            }
        }
        for (int j = 0; j < m; j++) {
            cap[1 + p + j][sink] = floor;
            cap[1 + p + j][ceiling] = extra > 0 ? 1 : 0;
        }
        cap[ceiling][sink] = extra;
        int flow = 0;
        while (true) {
            int[] prev = new int[n];
            Arrays.fill(prev, -1);
            prev[source] = source;
            java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>(List.of(source));
            while (!queue.isEmpty() && prev[sink] < 0) {
                int u = queue.poll();
                for (int v = 0; v < n; v++) {
                    if (prev[v] < 0 && cap[u][v] > 0) {
                        prev[v] = u;
                        queue.add(v);
                    }
                }
            }
            if (prev[sink] < 0) {
                return flow;
            }
            for (int v = sink; v != source; v = prev[v]) {
                cap[prev[v]][v]--;
                cap[v][prev[v]]++;
            }
            flow++;
        }
    }
}
