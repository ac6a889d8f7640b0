package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.benchmarks.support.ServerCounters;
import io.groupkeeper.embedded.EmbeddedKafka;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Kafka's own consumer groups on the in-process broker, under one {@link KafkaSetting}. Members are plain
 * {@link KafkaConsumer}s that {@code subscribe} (defaults otherwise: auto commit on, {@code auto.offset.reset=latest},
 * the default assignors).
 *
 * <p>Scenario (c) groups get a shorter session timeout ({@code crashSessionTimeoutMs}; 0 keeps Kafka's 45 s): for the
 * classic protocol the client's {@code session.timeout.ms}, for the consumer protocol the group config
 * {@code consumer.session.timeout.ms}. The time is measured from the broker's own detection of the expiry
 * ({@link KafkaExpiryLog}), so the timeout changes how long a repetition takes, not the figure.
 */
public final class KafkaNativeSubject implements RebalanceSubject {

    private final KafkaSetting setting;
    private final EmbeddedKafka kafka;
    private final String topic;
    private final long crashSessionTimeoutMs;
    private final Admin admin;
    private final List<String> groupConfigNotes = new ArrayList<>();

    public KafkaNativeSubject(KafkaSetting setting, EmbeddedKafka kafka, String topic, long crashSessionTimeoutMs) {
        this.setting = setting;
        this.kafka = kafka;
        this.topic = topic;
        this.crashSessionTimeoutMs = crashSessionTimeoutMs;
        this.admin = Admin.create(kafka.clientProperties());
    }

    /** Broker properties the harness's broker needs for every setting (the minimums that allow the overrides). */
    public static Map<String, String> brokerProperties(long crashSessionTimeoutMs) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("group.consumer.min.heartbeat.interval.ms", Integer.toString(KafkaSetting.brokerMinHeartbeatMs()));
        if (crashSessionTimeoutMs > 0) {
            p.put("group.consumer.min.session.timeout.ms", Long.toString(Math.min(crashSessionTimeoutMs, 45_000)));
            p.put("group.min.session.timeout.ms", Long.toString(Math.min(crashSessionTimeoutMs, 6_000)));
        }
        return p;
    }

    @Override
    public String key() {
        return setting.key;
    }

    @Override
    public String label() {
        return setting.label;
    }

    @Override
    public String system() {
        return "kafka";
    }

    @Override
    public boolean consumesRecords() {
        return true;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("group.protocol", setting.protocol);
        s.put("clientOverrides", setting.clientOverrides());
        s.put(
                "groupConfig.consumer.heartbeat.interval.ms",
                setting.brokerHeartbeatMs > 0 ? setting.brokerHeartbeatMs : "broker default");
        s.put("heartbeatMs", setting.heartbeatMs());
        s.put("crashScenarioSessionTimeoutMs", crashSessionTimeoutMs > 0 ? crashSessionTimeoutMs : "default");
        s.put("groupConfigNotes", groupConfigNotes);
        return s;
    }

    @Override
    public void prepareGroup(String groupId, boolean crashScenario) {
        if (!setting.protocol.equals("consumer")) {
            return;
        }
        List<AlterConfigOp> ops = new ArrayList<>();
        if (setting.brokerHeartbeatMs > 0) {
            ops.add(new AlterConfigOp(
                    new ConfigEntry("consumer.heartbeat.interval.ms", Integer.toString(setting.brokerHeartbeatMs)),
                    AlterConfigOp.OpType.SET));
        }
        if (crashScenario && crashSessionTimeoutMs > 0) {
            ops.add(new AlterConfigOp(
                    new ConfigEntry("consumer.session.timeout.ms", Long.toString(crashSessionTimeoutMs)),
                    AlterConfigOp.OpType.SET));
        }
        if (ops.isEmpty()) {
            return;
        }
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, groupId);
        try {
            admin.incrementalAlterConfigs(Map.of(group, (Collection<AlterConfigOp>) ops))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            var described = admin.describeConfigs(List.of(group))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(group);
            for (AlterConfigOp op : ops) {
                ConfigEntry e = described.get(op.configEntry().name());
                if (e == null || !op.configEntry().value().equals(e.value())) {
                    throw new IllegalStateException(
                            "group config " + op.configEntry().name() + " of " + groupId + " did not take: " + e);
                }
            }
            if (groupConfigNotes.isEmpty()) {
                groupConfigNotes.add("verified by describeConfigs: "
                        + ops.stream()
                                .map(o -> o.configEntry().name() + "="
                                        + o.configEntry().value())
                                .toList());
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot set group config of " + groupId + ": " + e, e);
        }
    }

    @Override
    public SubjectMember start(String groupId, String memberName, boolean crashScenario, Probe probe) {
        Map<String, Object> props = KafkaPollingMember.baseProperties(kafka.clientProperties(), groupId, memberName);
        props.put("group.protocol", setting.protocol);
        props.putAll(setting.clientOverrides());
        if (crashScenario && crashSessionTimeoutMs > 0 && setting.protocol.equals("classic")) {
            props.put("session.timeout.ms", Long.toString(crashSessionTimeoutMs));
        }
        return new KafkaPollingMember(memberName, topic, probe, listener -> {
                    Consumer<byte[], byte[]> c = new KafkaConsumer<>(props);
                    c.subscribe(List.of(topic), listener);
                    return c;
                })
                .start();
    }

    @Override
    public EventMarks beforeEvent(String groupId, SubjectMember crashTarget) {
        KafkaExpiryLog.clear(groupId);
        return new EventMarks() {
            @Override
            public long expiryDetectedAt() {
                return KafkaExpiryLog.expiredAt(groupId);
            }

            @Override
            public String expirySource() {
                return "broker group coordinator log (session expiry)";
            }
        };
    }

    /**
     * The broker's group-coordinator requests: {@code heartbeats} (Heartbeat, ConsumerGroupHeartbeat),
     * {@code commits} (OffsetCommit: auto commit, every 5 s by default), {@code other} (join, sync, leave, offset
     * fetch, find coordinator, describe).
     */
    @Override
    public Map<String, Long> coordinationCounts() {
        Map<String, Long> byRequest = ServerCounters.kafkaRequests(ServerCounters.KAFKA_COORDINATOR_REQUESTS);
        long heartbeats =
                byRequest.getOrDefault("Heartbeat", 0L) + byRequest.getOrDefault("ConsumerGroupHeartbeat", 0L);
        long commits = byRequest.getOrDefault("OffsetCommit", 0L);
        long all = byRequest.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Long> m = new LinkedHashMap<>();
        m.put(IdleTraffic.REQUESTS, all);
        m.put("heartbeats", heartbeats);
        m.put("commits", commits);
        m.put("other", all - heartbeats - commits);
        return m;
    }

    @Override
    public void close() {
        admin.close();
    }
}
