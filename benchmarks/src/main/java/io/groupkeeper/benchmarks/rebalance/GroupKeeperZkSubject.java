package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.benchmarks.support.GenerationWatch;
import io.groupkeeper.benchmarks.support.ZkActivity;
import io.groupkeeper.zookeeper.StoreStats;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * groupkeeper's coordination alone, no Kafka: the ZooKeeper part of a handoff. Each member is its own
 * {@link GroupKeeper} with its own {@link ZooKeeperStore} (its own session, as separate processes would have), default
 * settings (sticky, settle delay 0, session timeout 15 s), on a topic registered in the ZooKeeper topic registry with
 * the same partition count as the Kafka topic. "Done" is ownership only: the new owner holds the owner node and its
 * {@code onPartitionsAssigned} ran.
 *
 * <p>In the crash scenario each member's ZooKeeper connection goes through a {@link BlackholeProxy}, so a crash is a
 * real session expiry (the proxy goes silent; nothing is closed). Scenario (c) groups use {@code crashSessionTimeoutMs} as the session
 * timeout when it is set; the figure is measured from the expiry (the member node's deletion seen by an outside
 * watcher). The instant the leader's publish reaches an outside watcher splits each figure into "to publish" and
 * "publish to owned".
 */
public final class GroupKeeperZkSubject implements RebalanceSubject {

    private static final Logger LOG = LoggerFactory.getLogger(GroupKeeperZkSubject.class);

    private final String zkConnect;
    private final int zkPort;
    private final String topic;
    private final long crashSessionTimeoutMs;
    private final CuratorFramework admin;
    private final List<ZooKeeperStore> stores = new CopyOnWriteArrayList<>();
    /** Steps of the most recently started member: its session connected, its start() returned. */
    private final Map<String, Long> lastStartPhases = new ConcurrentHashMap<>();

    public GroupKeeperZkSubject(String zkConnect, String topic, int partitions, long crashSessionTimeoutMs) {
        this.zkConnect = zkConnect;
        this.zkPort = Integer.parseInt(zkConnect.substring(zkConnect.lastIndexOf(':') + 1));
        this.topic = topic;
        this.crashSessionTimeoutMs = crashSessionTimeoutMs;
        this.admin = CuratorFrameworkFactory.newClient(zkConnect, new RetryOneTime(100));
        admin.start();
        try (ZooKeeperStore s =
                ZooKeeperStore.builder().connectString(zkConnect).build()) {
            s.start();
            s.topics().ensureTopic(topic, partitions);
        }
    }

    @Override
    public String key() {
        return "groupkeeper-zk";
    }

    @Override
    public String label() {
        return "groupkeeper, ZooKeeper part only (no Kafka)";
    }

    @Override
    public String system() {
        return "groupkeeper-zk";
    }

    @Override
    public boolean consumesRecords() {
        return false;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("assignor", "sticky (default)");
        s.put("settleDelay", "0 (default)");
        s.put("sessionTimeout", "15 s (default)");
        s.put("crashScenarioSessionTimeoutMs", crashSessionTimeoutMs > 0 ? crashSessionTimeoutMs : "default");
        s.put("sessions", "one per member; in scenario (c) each through a loopback proxy");
        return s;
    }

    /** Summed round-trip and watch counters of every member session this subject created. */
    public StoreStats stats() {
        return new ZkActivity(stores).snapshot();
    }

    /**
     * ZooKeeper's count of the packets it received ({@code requests}: pings, reads, writes and transactions of every
     * session, the harness's own outside watcher included) and the members' own {@code StoreStats} (reads, writes,
     * transactions, watch events).
     */
    @Override
    public Map<String, Long> coordinationCounts() {
        return IdleTraffic.zooKeeperCounts(stats());
    }

    @Override
    public SubjectMember start(String groupId, String memberName, boolean crashScenario, Probe probe) {
        Member m = new Member(groupId, memberName, crashScenario, probe);
        m.thread.start();
        return m;
    }

    @Override
    public EventMarks beforeEvent(String groupId, SubjectMember crashTarget) {
        GenerationWatch watch = new GenerationWatch(admin, "/groupkeeper", groupId);
        try {
            lastStartPhases.clear();
            AtomicLong publishedAt = watch.nextPublish();
            AtomicLong membershipAt = watch.nextMembershipChange();
            AtomicLong deleted =
                    crashTarget == null ? new AtomicLong() : watch.memberDeleted(((Member) crashTarget).memberId());
            return new EventMarks() {
                @Override
                public long publishedAt() {
                    return publishedAt.get();
                }

                @Override
                public Map<String, Long> phases() {
                    Map<String, Long> p = new LinkedHashMap<>();
                    for (String k : List.of("connected", "started")) {
                        Long v = lastStartPhases.get(k);
                        if (v != null) {
                            p.put(k, v);
                        }
                    }
                    if (membershipAt.get() != 0) {
                        p.put("membership", membershipAt.get()); // member node created/deleted, seen from outside
                    }
                    return p;
                }

                @Override
                public long expiryDetectedAt() {
                    return deleted.get();
                }

                @Override
                public String expirySource() {
                    return "member node deleted by session expiry (outside watcher)";
                }
            };
        } catch (Exception e) {
            throw new IllegalStateException("cannot watch group " + groupId + ": " + e, e);
        }
    }

    @Override
    public void close() {
        admin.close();
    }

    private final class Member implements SubjectMember {
        private final String groupId;
        private final String name;
        private final boolean crashScenario;
        private final Probe probe;
        private final Thread thread;
        private final Object lock = new Object();
        private volatile String memberId;
        private volatile boolean crashed;
        private GroupKeeper keeper;
        private GroupMember member;
        private BlackholeProxy proxy;
        private String command;

        Member(String groupId, String name, boolean crashScenario, Probe probe) {
            this.groupId = groupId;
            this.name = name;
            this.crashScenario = crashScenario;
            this.probe = probe;
            this.thread = new Thread(this::run, "gk-member-" + name);
            thread.setDaemon(true);
        }

        @Override
        public String name() {
            return name;
        }

        String memberId() {
            synchronized (lock) {
                while (memberId == null) {
                    try {
                        lock.wait(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return null;
                    }
                }
                return memberId;
            }
        }

        private void run() {
            try {
                // Only a member that may be crashed goes through a proxy: its two extra thread hops per round trip are
                // a
                // harness artefact that no deployment has.
                proxy = crashScenario ? new BlackholeProxy(zkPort) : null;
                ZooKeeperStore.Builder b =
                        ZooKeeperStore.builder().connectString(proxy != null ? proxy.connectString() : zkConnect);
                if (crashScenario && crashSessionTimeoutMs > 0) {
                    b.sessionTimeout(Duration.ofMillis(crashSessionTimeoutMs));
                }
                ZooKeeperStore store = b.build();
                stores.add(store);
                keeper = GroupKeeper.builder().store(store).build().start();
                lastStartPhases.put("connected", System.nanoTime());
                member = keeper.member(groupId)
                        .topics(topic)
                        .listener(new RebalanceListener() {
                            @Override
                            public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
                                probe.assigned(name, numbers(partitions.keySet()));
                            }

                            @Override
                            public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
                                probe.revoked(name, numbers(partitions));
                            }

                            @Override
                            public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
                                probe.revoked(name, numbers(partitions));
                            }
                        })
                        .build();
                synchronized (lock) {
                    memberId = member.memberId();
                    lock.notifyAll();
                }
                member.start();
                lastStartPhases.put("started", System.nanoTime());
                String c;
                synchronized (lock) {
                    while (command == null) {
                        lock.wait();
                    }
                    c = command;
                }
                if (c.equals("leave")) {
                    keeper.close(); // closes the member gracefully, then the store
                    if (proxy != null) {
                        proxy.close();
                    }
                } else {
                    BlackholeProxy.cut(proxy);
                    crashed = true;
                    // The process is "dead": its session expires on the server. Clean up its client much later, in
                    // the background, without touching ZooKeeper through the proxy.
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | IOException e) {
                LOG.error("groupkeeper member {} failed", name, e);
            }
        }

        private void command(String c) {
            synchronized (lock) {
                command = c;
                lock.notifyAll();
            }
        }

        @Override
        public void leave() {
            command("leave");
        }

        @Override
        public void crash() {
            command("crash");
        }

        @Override
        public void awaitStopped(long timeoutMs) {
            try {
                thread.join(timeoutMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (crashed) {
                // Release the dead member's client threads without delaying the harness.
                Thread reaper = new Thread(
                        () -> {
                            try {
                                keeper.close();
                            } catch (RuntimeException e) {
                                // its session is gone
                            }
                            if (proxy != null) {
                                proxy.close();
                            }
                        },
                        "gk-reaper-" + name);
                reaper.setDaemon(true);
                reaper.start();
            }
        }

        private static List<Integer> numbers(Collection<TopicPartition> partitions) {
            List<Integer> out = new ArrayList<>(partitions.size());
            partitions.forEach(tp -> out.add(tp.partition()));
            return out;
        }
    }
}
