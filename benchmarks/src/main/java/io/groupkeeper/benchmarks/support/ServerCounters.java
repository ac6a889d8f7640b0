package io.groupkeeper.benchmarks.support;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Request counters of the in-process servers, read through the platform MBean server: the broker's
 * {@code kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*,version=*} meters (summed over versions) and
 * ZooKeeper's {@code org.apache.ZooKeeperService} server bean ({@code PacketsReceived}: every request a client sends,
 * pings included). Servers count every client, so a figure is a subject's only while its group is the one running.
 */
public final class ServerCounters {

    /** Kafka's group-coordinator requests, by the name the broker's request metrics use. */
    public static final Set<String> KAFKA_COORDINATOR_REQUESTS = Set.of(
            "Heartbeat",
            "ConsumerGroupHeartbeat",
            "OffsetCommit",
            "JoinGroup",
            "SyncGroup",
            "LeaveGroup",
            "OffsetFetch",
            "FindCoordinator",
            "ConsumerGroupDescribe");

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private ServerCounters() {}

    /** Requests the broker has handled so far, by request name, for the names in {@code requests}. */
    public static Map<String, Long> kafkaRequests(Set<String> requests) {
        Map<String, Long> counts = new LinkedHashMap<>();
        try {
            for (ObjectName n :
                    JMX.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                String request = n.getKeyProperty("request");
                if (requests.contains(request)) {
                    counts.merge(request, ((Number) JMX.getAttribute(n, "Count")).longValue(), Long::sum);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the broker's request metrics: " + e, e);
        }
        return counts;
    }

    /** Packets every in-process ZooKeeper server has received so far (requests and pings); -1 if none is found. */
    public static long zooKeeperPacketsReceived() {
        long sum = -1;
        try {
            for (ObjectName n : JMX.queryNames(new ObjectName("org.apache.ZooKeeperService:*"), null)) {
                if (n.getKeyPropertyList().size() == 1) { // the server bean itself, not its connections or data tree
                    sum = Math.max(sum, 0) + ((Number) JMX.getAttribute(n, "PacketsReceived")).longValue();
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read ZooKeeper's server bean: " + e, e);
        }
        return sum;
    }
}
