package io.groupkeeper.assignor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The sticky assignor's rack phase: given a balanced assignment, raises the number of partitions read from a replica
 * in the owner's rack as far as the members' loads allow, moving as few partitions as it can.
 *
 * <p>It never changes the multiset of loads, so the result is exactly as balanced as its input. The moves are
 * cycles of hand-overs: members of a cycle each give one partition to the next and receive one from the previous
 * (loads unchanged), or, closing a path instead of a cycle, a member with load {@code k} gives one and a member with
 * load {@code k - 1} receives one (the two swap loads). A cycle is applied only when it lowers the cost
 * {@code W * remote + leftHome}: {@code remote} counts partitions not read from a replica in their owner's rack,
 * {@code leftHome} those whose owner is not the owner they had before this assignment, and {@code W} exceeds any
 * cycle's length, so locality comes first and, among equally local assignments, fewer moves. A partition is local only
 * when its owner has a rack and the partition a replica there: a member without a rack, or a partition without known
 * racks, counts as remote wherever it goes, so moving it never pays.
 *
 * <p>Why the result is as local as balance allows: with loads fixed this is a transportation problem, and an
 * assignment is optimal exactly when its residual graph has no negative cycle. Members that share a subscription, a
 * rack and a load are interchangeable for locality, so the search runs on those groups (a few per rack), not on
 * members, and each group's cheapest hand-over to each other group is one edge. The path moves (load swaps) make the
 * search cover every balanced load vector with a common subscription (a member at the ceiling and one at the floor
 * may trade places); with mixed subscriptions it covers the swaps between adjacent loads, which is what the
 * balanced assignments there differ by in practice, but optimality is only claimed for a common subscription.
 *
 * <p>Partitions that KIP-881 would move are those this moves: a partition read from another rack may move to a
 * member in a rack with a replica, taking the place of a partition that stays (or becomes) local, never at the cost
 * of balance. Unlike Kafka's sticky assignor it does not drop a remote partition from its owner first: a remote
 * partition stays where it is unless some cycle makes the group more local.
 *
 * <p>Each applied cycle lowers the (integer, non-negative) cost, so the phase ends; each search is a Bellman-Ford
 * over the groups, O(G^3), plus O(P) to rebuild the groups' holdings.
 */
final class RackLocality {

    private final int memberCount;
    private final int[] memberClass;
    private final int[][] classTopics;
    private final int[] memberRack;
    private final int[] topicOf;
    /** Per partition: index of its rack set, or -1 when unknown. */
    private final int[] rackSet;
    /** remote[s][r]: rack set s holds no replica in member rack r. */
    private final boolean[][] remoteTable;

    private final int[] owner;
    private final int[] previous;
    private final int[] load;

    /** Per member: key (topic, rack set, free) to the partitions it holds with that key. */
    private final List<TreeMap<Long, TreeSet<Integer>>> held = new ArrayList<>();

    int cycles;
    int handOvers;

    /**
     * @param owner    partition to member, changed in place
     * @param previous partition to the owner it had before this assignment, or -1
     */
    RackLocality(
            int memberCount,
            int[] memberClass,
            int[][] classTopics,
            int[] memberRack,
            int[] topicOf,
            int[] rackSet,
            boolean[][] remoteTable,
            int[] owner,
            int[] previous) {
        this.memberCount = memberCount;
        this.memberClass = memberClass;
        this.classTopics = classTopics;
        this.memberRack = memberRack;
        this.topicOf = topicOf;
        this.rackSet = rackSet;
        this.remoteTable = remoteTable;
        this.owner = owner;
        this.previous = previous;
        this.load = new int[memberCount];
        for (int m = 0; m < memberCount; m++) {
            held.add(new TreeMap<>());
        }
        for (int g = 0; g < owner.length; g++) {
            if (owner[g] >= 0) {
                load[owner[g]]++;
                add(owner[g], g);
            }
        }
    }

    private boolean remote(int g, int m) {
        return remoteIn(rackSet[g], memberRack[m]);
    }

    /** Not local: local needs a member rack, known replica racks, and a replica in that rack. */
    private boolean remoteIn(int s, int r) {
        return r < 0 || s < 0 || remoteTable[s][r];
    }

    private long key(int g, int holder) {
        long free = previous[g] == holder ? 0 : 1;
        return ((long) topicOf[g] << 32) | ((long) (rackSet[g] + 1) << 1) | free;
    }

    private void add(int m, int g) {
        held.get(m).computeIfAbsent(key(g, m), k -> new TreeSet<>()).add(g);
    }

    private void remove(int m, int g) {
        long k = key(g, m);
        TreeSet<Integer> set = held.get(m).get(k);
        set.remove(g);
        if (set.isEmpty()) {
            held.get(m).remove(k);
        }
    }

    /** The number of partitions whose owner's rack holds a replica of them. */
    static int localCount(int[] owner, int[] memberRack, int[] rackSet, boolean[][] remoteTable) {
        int local = 0;
        for (int g = 0; g < owner.length; g++) {
            int m = owner[g];
            if (m >= 0 && memberRack[m] >= 0 && rackSet[g] >= 0 && !remoteTable[rackSet[g]][memberRack[m]]) {
                local++;
            }
        }
        return local;
    }

    /** Runs the phase to its end. */
    void run() {
        while (improveOnce()) {
            cycles++;
        }
    }

    private static final int NONE = Integer.MAX_VALUE;

    /** Finds and applies one improving cycle; false when there is none. */
    private boolean improveOnce() {
        // Groups: members with one class, rack and load. Only members with topics (a class with topics) take part.
        Map<List<Integer>, Integer> ids = new HashMap<>();
        List<List<Integer>> groupMembers = new ArrayList<>();
        List<int[]> groupKey = new ArrayList<>(); // class, rack, load
        for (int m = 0; m < memberCount; m++) {
            if (classTopics[memberClass[m]].length == 0) {
                continue;
            }
            List<Integer> k = List.of(memberClass[m], memberRack[m], load[m]);
            Integer id = ids.get(k);
            if (id == null) {
                id = groupMembers.size();
                ids.put(k, id);
                groupMembers.add(new ArrayList<>());
                groupKey.add(new int[] {memberClass[m], memberRack[m], load[m]});
            }
            groupMembers.get(id).add(m);
        }
        int n = groupMembers.size();
        if (n < 2) {
            return false;
        }
        long weight = n + 1L; // more than any cycle's length: one partition made local outweighs every move
        // Holdings per group: key -> count.
        List<TreeMap<Long, Integer>> holdings = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TreeMap<Long, Integer> h = new TreeMap<>();
            for (int m : groupMembers.get(i)) {
                held.get(m).forEach((k, set) -> h.merge(k, set.size(), Integer::sum));
            }
            holdings.add(h);
        }
        long[][] cost = new long[n][n];
        long[][] edgeKey = new long[n][n]; // -1: virtual (a load swap)
        for (int i = 0; i < n; i++) {
            int rackI = groupKey.get(i)[1];
            for (int j = 0; j < n; j++) {
                cost[i][j] = NONE;
                if (i == j) {
                    continue;
                }
                int[] topicsJ = classTopics[groupKey.get(j)[0]];
                int rackJ = groupKey.get(j)[1];
                long best = NONE;
                long bestKey = 0;
                for (Map.Entry<Long, Integer> e : holdings.get(i).entrySet()) {
                    long k = e.getKey();
                    int t = (int) (k >>> 32);
                    if (Arrays.binarySearch(topicsJ, t) < 0) {
                        continue;
                    }
                    int s = (int) ((k & 0xFFFF_FFFFL) >>> 1) - 1;
                    int remoteNow = remoteIn(s, rackI) ? 1 : 0;
                    int remoteThen = remoteIn(s, rackJ) ? 1 : 0;
                    long c = weight * (remoteThen - remoteNow) + ((k & 1) == 0 ? 1 : 0);
                    if (c < best) {
                        best = c;
                        bestKey = k;
                    }
                }
                if (groupKey.get(i)[2] + 1 == groupKey.get(j)[2] && 0 <= best) {
                    best = 0;
                    bestKey = -1; // i receives without giving; j gives without receiving
                }
                cost[i][j] = best;
                edgeKey[i][j] = bestKey;
            }
        }
        int[] cycle = negativeCycle(n, cost);
        if (cycle == null) {
            return false;
        }
        if (!apply(cycle, edgeKey, groupMembers)) {
            return false;
        }
        boolean loadsKept = true;
        for (int i = 0; i < cycle.length; i++) {
            loadsKept &= edgeKey[cycle[i]][cycle[(i + 1) % cycle.length]] >= 0;
        }
        // A cycle that keeps every load keeps the groups too: apply it again while it still pays (a fresh group needs
        // the same few cycles many times), before searching afresh.
        while (loadsKept && apply(cycle, edgeKey, groupMembers)) {
            cycles++;
        }
        return true;
    }

    /** Bellman-Ford from a virtual source joined to every node; a negative cycle as node order, or null. */
    private static int[] negativeCycle(int n, long[][] cost) {
        long[] dist = new long[n];
        int[] pred = new int[n];
        Arrays.fill(pred, -1);
        int last = -1;
        for (int round = 0; round < n; round++) {
            last = -1;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (cost[i][j] != NONE && dist[i] + cost[i][j] < dist[j]) {
                        dist[j] = dist[i] + cost[i][j];
                        pred[j] = i;
                        last = j;
                    }
                }
            }
            if (last < 0) {
                return null;
            }
        }
        int v = last;
        for (int i = 0; i < n; i++) {
            v = pred[v];
        }
        List<Integer> reversed = new ArrayList<>();
        int u = v;
        do {
            reversed.add(u);
            u = pred[u];
        } while (u != v);
        int[] cycle = new int[reversed.size()];
        for (int i = 0; i < cycle.length; i++) {
            cycle[i] = reversed.get(cycle.length - 1 - i); // forward order: cycle[i] -> cycle[i + 1]
        }
        return cycle;
    }

    /** Realizes the cycle on members and partitions; false (nothing changed) if it cannot or would not pay. */
    private boolean apply(int[] cycle, long[][] edgeKey, List<List<Integer>> groupMembers) {
        int k = cycle.length;
        int[] member = new int[k];
        int[] partition = new int[k]; // given by member[i] to member[i + 1]; -1 on a virtual edge
        Arrays.fill(member, -1);
        for (int i = 0; i < k; i++) {
            long key = edgeKey[cycle[i]][cycle[(i + 1) % k]];
            long keyIn = edgeKey[cycle[(i + k - 1) % k]][cycle[i]];
            if (key < 0 && keyIn < 0) {
                return false; // neither gives nor receives: would change the loads' multiset
            }
            if (key >= 0) {
                for (int m : groupMembers.get(cycle[i])) {
                    TreeSet<Integer> set = held.get(m).get(key);
                    if (set != null && !set.isEmpty()) {
                        member[i] = m;
                        break;
                    }
                }
                if (member[i] < 0) {
                    return false;
                }
            }
        }
        for (int i = 0; i < k; i++) {
            long key = edgeKey[cycle[i]][cycle[(i + 1) % k]];
            if (key < 0) {
                partition[i] = -1;
                continue;
            }
            TreeSet<Integer> set = held.get(member[i]).get(key);
            int next = member[(i + 1) % k];
            int chosen = set.last();
            if (next >= 0) {
                for (int g : set) {
                    if (previous[g] == next) {
                        chosen = g; // back home
                        break;
                    }
                }
            }
            partition[i] = chosen;
        }
        // Receivers that give nothing (their out-edge is a load swap): the incoming partition's previous owner if in
        // the group, else the group's first member.
        for (int i = 0; i < k; i++) {
            if (member[i] >= 0) {
                continue;
            }
            int in = partition[(i + k - 1) % k];
            List<Integer> candidates = groupMembers.get(cycle[i]);
            member[i] = candidates.contains(previous[in]) ? previous[in] : candidates.get(0);
        }
        long before = cost(member, partition, k, false);
        long after = cost(member, partition, k, true);
        if (after >= before) {
            return false;
        }
        for (int i = 0; i < k; i++) {
            int g = partition[i];
            if (g < 0) {
                continue;
            }
            int from = member[i];
            int to = member[(i + 1) % k];
            remove(from, g);
            owner[g] = to;
            add(to, g);
            load[from]--;
            load[to]++;
            handOvers++;
        }
        return true;
    }

    /** The cost of the cycle's partitions where they are ({@code moved} false) or after the hand-overs. */
    private long cost(int[] member, int[] partition, int k, boolean moved) {
        long weight = 1L << 20;
        long c = 0;
        for (int i = 0; i < k; i++) {
            int g = partition[i];
            if (g < 0) {
                continue;
            }
            int m = moved ? member[(i + 1) % k] : member[i];
            c += (remote(g, m) ? weight : 0) + (previous[g] == m ? 0 : 1);
        }
        return c;
    }
}
