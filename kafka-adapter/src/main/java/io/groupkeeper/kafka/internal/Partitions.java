package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Conversions between groupkeeper's and Kafka's {@code TopicPartition}. */
final class Partitions {

    private Partitions() {}

    static TopicPartition gk(org.apache.kafka.common.TopicPartition ktp) {
        return new TopicPartition(ktp.topic(), ktp.partition());
    }

    static org.apache.kafka.common.TopicPartition kafka(TopicPartition tp) {
        return new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
    }

    static List<org.apache.kafka.common.TopicPartition> kafka(Collection<TopicPartition> tps) {
        List<org.apache.kafka.common.TopicPartition> out = new ArrayList<>(tps.size());
        tps.forEach(tp -> out.add(kafka(tp)));
        return out;
    }
}
