package io.groupkeeper.spring;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.WorkerStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code groupkeeper} health contributor. DOWN when the ZooKeeper connection is down (its session suspended or
 * lost) or a container failed; OUT_OF_SERVICE when a container is stopped on purpose (or not started); UP otherwise.
 * Details name, per listener, the group, state, members (leader flag, owned partitions), paused and stopped
 * partitions and handlers stuck past the watchdog limit.
 */
public class GroupKeeperHealthIndicator implements HealthIndicator {

    private final GroupKeeper keeper;
    private final GroupKeeperContainers containers;

    public GroupKeeperHealthIndicator(GroupKeeper keeper, GroupKeeperContainers containers) {
        this.keeper = keeper;
        this.containers = containers;
    }

    @Override
    public Health health() {
        boolean connected = keeper.store().isConnected();
        boolean failed = false;
        boolean stopped = false;
        Map<String, Object> listeners = new LinkedHashMap<>();
        for (Map.Entry<String, ListenerContainer<?, ?>> e : containers.containers().entrySet()) {
            ListenerContainer<?, ?> c = e.getValue();
            ContainerState state = c.state();
            failed |= state == ContainerState.FAILED;
            stopped |= state != ContainerState.RUNNING && state != ContainerState.FAILED;
            listeners.put(e.getKey(), details(c, state));
        }
        Health.Builder b = !connected || failed ? Health.down() : stopped ? Health.outOfService() : Health.up();
        b.withDetail("zookeeper", Map.of("connected", connected, "store", keeper.store().describe()));
        b.withDetail("listeners", listeners);
        return b.build();
    }

    private static Map<String, Object> details(ListenerContainer<?, ?> c, ContainerState state) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("group", c.group());
        d.put("state", state.name());
        c.failure().ifPresent(f -> d.put("failure", f.toString()));
        List<Map<String, Object>> members = new ArrayList<>();
        for (WorkerStatus w : c.workers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("member", w.member());
            m.put("leader", w.leader());
            m.put("partitions", names(w.owned()));
            if (!w.paused().isEmpty()) {
                m.put("paused", names(w.paused()));
            }
            members.add(m);
        }
        d.put("members", members);
        if (!c.stoppedPartitions().isEmpty()) {
            Map<String, Object> s = new LinkedHashMap<>();
            c.stoppedPartitions().forEach((tp, sp) -> s.put(tp.toString(), "at offset " + sp.offset() + ": " + sp.reason()));
            d.put("stoppedPartitions", s);
        }
        int stuck = c.stuckHandlers().size();
        if (stuck > 0) {
            d.put("stuckHandlers", stuck);
        }
        return d;
    }

    private static List<String> names(java.util.Set<TopicPartition> tps) {
        List<String> out = new ArrayList<>();
        new TreeSet<>(tps.stream().map(TopicPartition::toString).toList()).forEach(out::add);
        return out;
    }
}
