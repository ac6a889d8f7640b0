package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.benchmarks.support.GenerationWatch;
import io.groupkeeper.benchmarks.support.ZkActivity;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.zookeeper.StoreStats;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * groupkeeper over Kafka: {@link CoordinatedConsumer} (a {@code KafkaConsumer} driven by {@code assign()} +
 * {@code seek()} under groupkeeper coordination) on the same broker and ZooKeeper as the other subjects, with the
 * adapter's defaults (commit interval 1 s, start position latest, sticky assignor, settle delay 0, session timeout
 * 15 s). Each member is what a separate process would be: its own {@link GroupKeeper} with its own
 * {@link ZooKeeperStore} session; in the crash scenario connected through a {@link BlackholeProxy} so
 * {@link SubjectMember#crash()} is a real session expiry.
 *
 * <p>Kafka consumer properties are the Kafka defaults plus {@code bootstrap.servers}, {@code client.id} and the
 * byte-array deserializers ({@link KafkaPollingMember#baseProperties} without {@code group.id}: the adapter never uses
 * Kafka's groups); the adapter forces {@code enable.auto.commit=false} and {@code auto.offset.reset=none}. The member
 * runs the loop a user would: {@code poll(Duration.ofMillis(100))} over and over, reporting one
 * {@link Probe#delivered} per partition per poll. {@code onPartitionsAssigned} is the adapter's, which it calls on the
 * polling thread after its {@code assign()} + {@code seek()} (including the ListOffsets lookup of the start position
 * when nothing was committed yet).
 *
 * <p>Phases reported per event (ms from the event): {@code connected} (the joiner's ZooKeeper session and
 * {@code GroupKeeper} started), {@code started} ({@code CoordinatedConsumer.start()} returned: member registered,
 * {@code KafkaConsumer} created), {@code membership} (member node created/deleted, outside watcher), publish, and
 * {@code zk-claimed}: the instant the last member finished the ZooKeeper side of its gains (owner nodes claimed, seen
 * through {@link GroupMetrics#rebalanced}); {@code revoked} (the last giver's polling thread called
 * {@code onPartitionsRevoked}) and {@code released} (the last giver's revoking ZooKeeper step, final commit and
 * release, completed) time the handoff inside the ZooKeeper part. {@code owned} minus {@code zk-claimed} is the adapter's hand-over to the
 * polling thread plus Kafka's {@code assign}/{@code seek}/ListOffsets; {@code fetch} is the first fetch.
 */
public final class GroupKeeperKafkaSubject implements RebalanceSubject {

    private static final Logger LOG = LoggerFactory.getLogger(GroupKeeperKafkaSubject.class);

    static final String PENDING = "needs kafka-adapter";

    private final String zkConnect;
    private final int zkPort;
    private final EmbeddedKafka kafka;
    final String topic;
    private final long crashSessionTimeoutMs;
    private final CuratorFramework admin;
    private final List<ZooKeeperStore> stores = new CopyOnWriteArrayList<>();
    private final Map<String, Long> lastStartPhases = new ConcurrentHashMap<>();
    /** Latest instant (nanoTime) at which any member completed a ZooKeeper-side gain since the last beforeEvent. */
    private final AtomicLong lastZkGain = new AtomicLong();
    /** Latest instant at which a giver's polling thread called onPartitionsRevoked since the last beforeEvent. */
    private final AtomicLong lastRevoked = new AtomicLong();
    /** Latest instant at which a giver's ZooKeeper step that revoked partitions completed (final commit + release). */
    private final AtomicLong lastReleased = new AtomicLong();

    public GroupKeeperKafkaSubject(String zkConnect, EmbeddedKafka kafka, String topic) {
        this(zkConnect, kafka, topic, 0);
    }

    public GroupKeeperKafkaSubject(String zkConnect, EmbeddedKafka kafka, String topic, long crashSessionTimeoutMs) {
        this.zkConnect = zkConnect;
        this.zkPort = Integer.parseInt(zkConnect.substring(zkConnect.lastIndexOf(':') + 1));
        this.kafka = kafka;
        this.topic = topic;
        this.crashSessionTimeoutMs = crashSessionTimeoutMs;
        this.admin = CuratorFrameworkFactory.newClient(zkConnect, new RetryOneTime(100));
        admin.start();
    }

    /** The adapter is wired in. */
    public static boolean available() {
        return true;
    }

    @Override
    public String key() {
        return "groupkeeper-kafka";
    }

    @Override
    public String label() {
        return "groupkeeper over Kafka (CoordinatedConsumer), defaults";
    }

    @Override
    public String system() {
        return "groupkeeper";
    }

    @Override
    public boolean consumesRecords() {
        return true;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("zookeeper", zkConnect);
        s.put("bootstrap", kafka.bootstrapServers());
        s.put(
                "adapter",
                "CoordinatedConsumer defaults: commitInterval 1 s, startPosition latest, outOfRange earliest, "
                        + "metadataRefresh 2 s, revocationTimeout 30 s");
        s.put("member", "sticky (default), settleDelay 0 (default), sessionTimeout 15 s (default)");
        s.put("crashScenarioSessionTimeoutMs", crashSessionTimeoutMs > 0 ? crashSessionTimeoutMs : "default");
        s.put(
                "kafkaConsumer",
                "Kafka defaults + bootstrap.servers, client.id, byte-array deserializers; adapter forces "
                        + "enable.auto.commit=false, auto.offset.reset=none");
        s.put("pollLoop", "poll(Duration.ofMillis(100)) in a loop");
        s.put(
                "sessions",
                "one GroupKeeper + ZooKeeper session per member; in scenario (c) each through a loopback proxy");
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
            lastZkGain.set(0);
            lastRevoked.set(0);
            lastReleased.set(0);
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
                        p.put("membership", membershipAt.get());
                    }
                    if (lastRevoked.get() != 0) {
                        p.put("revoked", lastRevoked.get());
                    }
                    if (lastReleased.get() != 0) {
                        p.put("released", lastReleased.get());
                    }
                    if (lastZkGain.get() != 0) {
                        p.put("zk-claimed", lastZkGain.get());
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
        private volatile String command;
        private volatile boolean crashed;
        private volatile GroupKeeper keeper;
        private volatile CoordinatedConsumer<byte[], byte[]> consumer;
        private volatile BlackholeProxy proxy;

        Member(String groupId, String name, boolean crashScenario, Probe probe) {
            this.groupId = groupId;
            this.name = name;
            this.crashScenario = crashScenario;
            this.probe = probe;
            this.thread = new Thread(this::run, "gkk-member-" + name);
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
            CoordinatedConsumer<byte[], byte[]> c;
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
                GroupMetrics metrics = new GroupMetrics() {
                    @Override
                    public void rebalanced(
                            String group, String member, long generation, int gained, int revoked, long nanos) {
                        if (gained > 0) {
                            lastZkGain.accumulateAndGet(System.nanoTime(), Math::max);
                        }
                        if (revoked > 0) {
                            lastReleased.accumulateAndGet(System.nanoTime(), Math::max);
                        }
                    }
                };
                keeper = GroupKeeper.builder()
                        .store(store)
                        .metrics(metrics)
                        .build()
                        .start();
                lastStartPhases.put("connected", System.nanoTime());
                Map<String, Object> props = KafkaPollingMember.baseProperties(kafka.clientProperties(), groupId, name);
                props.remove("group.id"); // the adapter does not use Kafka's groups
                c = CoordinatedConsumer.<byte[], byte[]>builder(keeper)
                        .group(groupId)
                        .topics(topic)
                        .kafkaProperties(props)
                        .listener(new ConsumerRebalanceListener() {
                            @Override
                            public void onPartitionsRevoked(Collection<TopicPartition> ps) {
                                lastRevoked.accumulateAndGet(System.nanoTime(), Math::max);
                                probe.revoked(name, numbers(ps));
                            }

                            @Override
                            public void onPartitionsAssigned(Collection<TopicPartition> ps) {
                                probe.assigned(name, numbers(ps));
                            }

                            @Override
                            public void onPartitionsLost(Collection<TopicPartition> ps) {
                                probe.revoked(name, numbers(ps));
                            }
                        })
                        .build();
                consumer = c;
                c.start();
                lastStartPhases.put("started", System.nanoTime());
                synchronized (lock) {
                    memberId = c.memberId();
                    lock.notifyAll();
                }
            } catch (RuntimeException | IOException e) {
                LOG.error("groupkeeper-over-Kafka member {} failed to start", name, e);
                return;
            }
            try {
                while (command == null) {
                    try {
                        ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(100));
                        long now = System.nanoTime();
                        for (TopicPartition tp : records.partitions()) {
                            if (tp.topic().equals(topic)) {
                                probe.delivered(name, tp.partition(), now);
                            }
                        }
                    } catch (WakeupException e) {
                        // a command is waiting
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("member {}: poll loop failed: {}", name, e.toString());
            }
            if ("leave".equals(command)) {
                try {
                    c.close(); // revokes (listener), commits, leaves the group, closes the KafkaConsumer
                    keeper.close();
                } catch (RuntimeException e) {
                    LOG.warn("member {}: close: {}", name, e.toString());
                }
                if (proxy != null) {
                    proxy.close();
                }
            } else {
                // Crash: the ZooKeeper connection goes silent and the polling thread stops, no commit, no close; the
                // group learns of it by session expiry. The client is released later (awaitStopped).
                BlackholeProxy.cut(proxy);
                crashed = true;
            }
        }

        private void signal(String c) {
            command = c;
            CoordinatedConsumer<byte[], byte[]> k = consumer;
            if (k != null) {
                k.wakeup();
            }
        }

        @Override
        public void leave() {
            signal("leave");
        }

        @Override
        public void crash() {
            if (consumer == null) {
                command = "crash";
                return;
            }
            // blackhole first, so nothing more reaches ZooKeeper even while the poll thread winds down
            BlackholeProxy.cut(proxy);
            signal("crash");
        }

        @Override
        public void awaitStopped(long timeoutMs) {
            try {
                thread.join(timeoutMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (crashed) {
                CoordinatedConsumer<byte[], byte[]> c = consumer;
                GroupKeeper k = keeper;
                BlackholeProxy p = proxy;
                Thread reaper = new Thread(
                        () -> {
                            if (p != null) {
                                p.close(); // first: the dead member's ZooKeeper calls then fail fast instead of waiting
                            }
                            try {
                                if (c != null) {
                                    c.close();
                                }
                            } catch (RuntimeException e) {
                                // its session is gone
                            }
                            try {
                                if (k != null) {
                                    k.close();
                                }
                            } catch (RuntimeException e) {
                                // its session is gone
                            }
                        },
                        "gkk-reaper-" + name);
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
