package io.groupkeeper.benchmarks.rebalance;

import java.util.Arrays;
import java.util.Map;

/**
 * The Kafka group settings the side-by-side measures: each protocol at its defaults, at a 500 ms heartbeat (issue 7),
 * and at its fastest (issue 19): classic at {@code heartbeat.interval.ms} 100 and 20, KIP-848 at 20 ms and at the
 * broker's floor. KIP-848's heartbeat interval is the broker's: {@link #brokerHeartbeatMs} is set per group with the
 * dynamic group config {@code consumer.heartbeat.interval.ms}, which the broker accepts down to
 * {@code group.consumer.min.heartbeat.interval.ms} (itself {@code atLeast(1)} in Kafka 4.4's
 * {@code GroupCoordinatorConfig}); {@link #brokerMinHeartbeatMs()} is what the harness's broker allows.
 */
public enum KafkaSetting {
    CLASSIC_DEFAULT("kafka-classic-default", "Kafka classic, defaults", "classic", 0, 0),
    CLASSIC_HB500("kafka-classic-hb500", "Kafka classic, heartbeat.interval.ms=500", "classic", 500, 0),
    CLASSIC_HB100("kafka-classic-hb100", "Kafka classic, heartbeat.interval.ms=100", "classic", 100, 0),
    CLASSIC_HB20("kafka-classic-hb20", "Kafka classic, heartbeat.interval.ms=20", "classic", 20, 0),
    CONSUMER_DEFAULT("kafka-consumer-default", "Kafka consumer (KIP-848), defaults", "consumer", 0, 0),
    CONSUMER_HB500("kafka-consumer-hb500", "Kafka consumer (KIP-848), heartbeat interval 500 ms", "consumer", 0, 500),
    CONSUMER_HB20("kafka-consumer-hb20", "Kafka consumer (KIP-848), heartbeat interval 20 ms", "consumer", 0, 20),
    /** KIP-848 at the lowest heartbeat interval the broker accepts (1 ms). */
    CONSUMER_HB1(
            "kafka-consumer-hb1", "Kafka consumer (KIP-848), heartbeat interval 1 ms (broker floor)", "consumer", 0, 1);

    final String key;
    final String label;
    final String protocol;
    /** The classic client's {@code heartbeat.interval.ms}; 0: the client default (3 s). */
    final int clientHeartbeatMs;
    /** KIP-848's group config {@code consumer.heartbeat.interval.ms}; 0: the broker default (5 s). */
    final int brokerHeartbeatMs;

    KafkaSetting(String key, String label, String protocol, int clientHeartbeatMs, int brokerHeartbeatMs) {
        this.key = key;
        this.label = label;
        this.protocol = protocol;
        this.clientHeartbeatMs = clientHeartbeatMs;
        this.brokerHeartbeatMs = brokerHeartbeatMs;
    }

    public String key() {
        return key;
    }

    /** Client properties this setting overrides. */
    Map<String, String> clientOverrides() {
        return clientHeartbeatMs == 0 ? Map.of() : Map.of("heartbeat.interval.ms", Integer.toString(clientHeartbeatMs));
    }

    /** The heartbeat interval in effect, ms (Kafka's defaults: classic 3 s, KIP-848 5 s). */
    public int heartbeatMs() {
        if (protocol.equals("classic")) {
            return clientHeartbeatMs == 0 ? 3_000 : clientHeartbeatMs;
        }
        return brokerHeartbeatMs == 0 ? 5_000 : brokerHeartbeatMs;
    }

    /** The broker's {@code group.consumer.min.heartbeat.interval.ms}: low enough for every setting. */
    static int brokerMinHeartbeatMs() {
        return Arrays.stream(values())
                .filter(s -> s.brokerHeartbeatMs > 0)
                .mapToInt(s -> s.brokerHeartbeatMs)
                .min()
                .orElse(5_000);
    }

    public static KafkaSetting byKey(String key) {
        for (KafkaSetting s : values()) {
            if (s.key.equals(key)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown Kafka setting " + key + "; known: "
                + Arrays.stream(values()).map(KafkaSetting::key).toList());
    }
}
