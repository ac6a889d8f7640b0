package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.benchmarks.support.ServerCounters;
import io.groupkeeper.zookeeper.StoreStats;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Steady-state coordination traffic of a settled group that only consumes (issue 19 item 2): the difference of a
 * subject's {@link RebalanceSubject#coordinationCounts()} over an idle window, per member and second. What Kafka's
 * groups pay for their rebalance latency (a heartbeat per member every interval, forever) next to what groupkeeper's
 * do (a ZooKeeper session ping every third of the session timeout when nothing else is sent, plus its commits).
 *
 * @param seconds           the window
 * @param members           members in the group
 * @param perMemberPerSecond each counted kind, per member per second; {@link #REQUESTS} is the total
 */
public record IdleTraffic(double seconds, int members, Map<String, Double> perMemberPerSecond) {

    /** The key of the total: every coordination request (Kafka) or every packet ZooKeeper received (groupkeeper). */
    public static final String REQUESTS = "requests";

    /** Counts the subject's coordination requests while its group of {@code members} idles for {@code idleMs}. */
    static IdleTraffic measure(RebalanceSubject subject, int members, long idleMs) throws InterruptedException {
        Map<String, Long> before = subject.coordinationCounts();
        long t0 = System.nanoTime();
        Thread.sleep(idleMs);
        Map<String, Long> after = subject.coordinationCounts();
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Double> rates = new LinkedHashMap<>();
        after.forEach((k, v) -> rates.put(k, (v - before.getOrDefault(k, 0L)) / (seconds * members)));
        return new IdleTraffic(seconds, members, rates);
    }

    /** Requests per member per second; NaN if the subject does not count them. */
    public double requestsPerMemberPerSecond() {
        return perMemberPerSecond.getOrDefault(REQUESTS, Double.NaN);
    }

    /** groupkeeper's counts: ZooKeeper's received packets, then the members' own store counters. */
    static Map<String, Long> zooKeeperCounts(StoreStats members) {
        Map<String, Long> m = new LinkedHashMap<>();
        long packets = ServerCounters.zooKeeperPacketsReceived();
        if (packets >= 0) { // -1: the server runs in another JVM (SideBySideMain --zk-jvm)
            m.put(REQUESTS, packets);
        }
        m.put("reads", members.reads());
        m.put("writes", members.writes());
        m.put("transactions", members.transactions());
        m.put("watchEvents", members.watchEvents());
        return m;
    }

    /** One line for the console. */
    String describe() {
        StringBuilder kinds = new StringBuilder();
        perMemberPerSecond.forEach((k, v) -> {
            if (!k.equals(REQUESTS)) {
                kinds.append(kinds.length() == 0 ? "" : ", ")
                        .append(k)
                        .append(' ')
                        .append(String.format(Locale.ROOT, "%.2f", v));
            }
        });
        return String.format(
                Locale.ROOT,
                "idle coordination traffic: %.2f requests/s per member [%s] over %.1f s," + " %d members",
                requestsPerMemberPerSecond(),
                kinds,
                seconds,
                members);
    }
}
