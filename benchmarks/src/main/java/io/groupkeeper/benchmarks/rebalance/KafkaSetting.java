package io.groupkeeper.benchmarks.rebalance;

import java.util.Map;

/** The four Kafka group settings of issue 7, item 2. */
public enum KafkaSetting {

    CLASSIC_DEFAULT("kafka-classic-default", "Kafka classic, defaults", "classic", Map.of(), false),
    CLASSIC_HB500("kafka-classic-hb500", "Kafka classic, heartbeat.interval.ms=500", "classic",
            Map.of("heartbeat.interval.ms", "500"), false),
    CONSUMER_DEFAULT("kafka-consumer-default", "Kafka consumer (KIP-848), defaults", "consumer", Map.of(), false),
    CONSUMER_HB500("kafka-consumer-hb500", "Kafka consumer (KIP-848), heartbeat interval 500 ms", "consumer", Map.of(), true);

    final String key;
    final String label;
    final String protocol;
    final Map<String, String> clientOverrides;
    /** KIP-848's heartbeat interval is the broker's: set per group ({@code consumer.heartbeat.interval.ms}). */
    final boolean brokerHeartbeat500;

    KafkaSetting(String key, String label, String protocol, Map<String, String> clientOverrides, boolean brokerHeartbeat500) {
        this.key = key;
        this.label = label;
        this.protocol = protocol;
        this.clientOverrides = clientOverrides;
        this.brokerHeartbeat500 = brokerHeartbeat500;
    }

    public String key() {
        return key;
    }

    public static KafkaSetting byKey(String key) {
        for (KafkaSetting s : values()) {
            if (s.key.equals(key)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown Kafka setting " + key);
    }
}
