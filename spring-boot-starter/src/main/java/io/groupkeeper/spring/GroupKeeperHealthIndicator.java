package io.groupkeeper.spring;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.ContainerState;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.spi.ConnectionEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code groupkeeper} health contributor. DOWN when the ZooKeeper session is gone (the store heard LOST, or the
 * connection has been down for longer than the session timeout, after which the server has ended the session) or a
 * container failed (or runs no worker); a container stopped on purpose (or not started) is named in the details
 * ({@code stoppedListeners}) and does not make the application unhealthy; UP otherwise, including
 * while the connection is in doubt for less than the session timeout (a ZooKeeper server's restart, a network blip):
 * the members then hold no partition (invariant I7) and get them back if the session survives, so a probe that
 * restarted every pod on a blip would only make things worse; the details say {@code connected=false} and for how
 * long. Details name, per listener, the group, state, members (leader flag, owned partitions), paused and stopped
 * partitions and handlers stuck past the watchdog limit.
 */
public class GroupKeeperHealthIndicator implements HealthIndicator {

    private final GroupKeeper keeper;
    private final GroupKeeperContainers containers;
    private final LongSupplier nanoTime;
    /** When the connection was last seen going away (nanoTime); 0 while connected. */
    private final AtomicLong suspendedAt = new AtomicLong();

    private volatile boolean lost;

    public GroupKeeperHealthIndicator(GroupKeeper keeper, GroupKeeperContainers containers) {
        this(keeper, containers, System::nanoTime);
    }

    GroupKeeperHealthIndicator(GroupKeeper keeper, GroupKeeperContainers containers, LongSupplier nanoTime) {
        this.keeper = keeper;
        this.containers = containers;
        this.nanoTime = nanoTime;
        keeper.store().addConnectionListener(this::connectionChanged);
    }

    private void connectionChanged(ConnectionEvent event) {
        if (event.isConnected()) {
            suspendedAt.set(0);
            lost = false;
        } else {
            suspendedAt.compareAndSet(0, stamp());
            lost |= event == ConnectionEvent.LOST;
        }
    }

    private long stamp() {
        long now = nanoTime.getAsLong();
        return now == 0 ? 1 : now; // 0 means connected
    }

    @Override
    public Health health() {
        boolean connected = keeper.store().isConnected();
        Duration inDoubt = Duration.ZERO;
        if (connected) {
            suspendedAt.set(0);
        } else {
            suspendedAt.compareAndSet(0, stamp()); // went away unheard (or never connected): counted from now
            inDoubt = Duration.ofNanos(nanoTime.getAsLong() - suspendedAt.get());
        }
        Duration sessionTimeout = keeper.store().sessionTimeout();
        boolean sessionGone = !connected && (lost || inDoubt.compareTo(sessionTimeout) > 0);
        boolean failed = false;
        List<String> stopped = new ArrayList<>();
        Map<String, Object> listeners = new LinkedHashMap<>();
        for (Map.Entry<String, ListenerContainer<?, ?>> e :
                containers.containers().entrySet()) {
            ListenerContainer<?, ?> c = e.getValue();
            ContainerState state = c.state();
            // Dead: failed, or running with no worker left consuming (never silently UP while nothing consumes).
            failed |= state == ContainerState.FAILED
                    || (state == ContainerState.RUNNING && c.workers().stream().noneMatch(WorkerStatus::running));
            if (state != ContainerState.RUNNING && state != ContainerState.FAILED) {
                stopped.add(e.getKey()); // on purpose (stop(), auto-startup=false): said, not unhealthy
            }
            listeners.put(e.getKey(), details(c, state));
        }
        Health.Builder b = sessionGone || failed ? Health.down() : Health.up();
        if (!stopped.isEmpty()) {
            b.withDetail("stoppedListeners", stopped);
        }
        Map<String, Object> zk = new LinkedHashMap<>();
        zk.put("connected", connected);
        if (!connected) {
            zk.put("disconnectedForMs", inDoubt.toMillis());
            zk.put("sessionTimeoutMs", sessionTimeout.toMillis());
            zk.put("sessionLost", sessionGone);
        }
        zk.put("store", keeper.store().describe());
        b.withDetail("zookeeper", zk);
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
            c.stoppedPartitions()
                    .forEach((tp, sp) -> s.put(tp.toString(), "at offset " + sp.offset() + ": " + sp.reason()));
            d.put("stoppedPartitions", s);
        }
        int stuck = c.stuckHandlers().size();
        if (stuck > 0) {
            d.put("stuckHandlers", stuck);
        }
        return d;
    }

    private static List<String> names(Set<TopicPartition> tps) {
        List<String> out = new ArrayList<>();
        new TreeSet<>(tps.stream().map(TopicPartition::toString).toList()).forEach(out::add);
        return out;
    }
}
