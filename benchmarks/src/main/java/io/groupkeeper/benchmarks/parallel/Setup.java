package io.groupkeeper.benchmarks.parallel;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * What every contender's instance gets: the servers, the topic, the workers per instance, and the same consumer
 * settings ({@code max.poll.records} 500, Kafka's fetch defaults, set explicitly; no auto commit; from the earliest),
 * the handler's wait, and for parallel-consumer's own JVM the kafka-clients jar to put first and where it logs.
 */
record Setup(
        String bootstrap,
        String zkConnect,
        String topic,
        int partitions,
        int workers,
        long handlerMs,
        Path pcKafkaClients,
        Path pcLog) {

    /** Kafka consumer properties for {@code group}. */
    Map<String, Object> consumerProps(String group) {
        Map<String, Object> p = fetchProps();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return p;
    }

    /** The servers and the fetch settings alone (groupkeeper's adapter sets group, commits and start position). */
    Map<String, Object> fetchProps() {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 52_428_800);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1_048_576);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        return p;
    }
}
