package io.groupkeeper.benchmarks.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** The parallel harnesses' input: records of 100 bytes, key {@code k<i mod keys>}. */
final class KeyedRecords {

    private KeyedRecords() {}

    /** {@code records} records into {@code partition}, or partitioned by key (Kafka's default) when it is null. */
    static void produce(String bootstrap, String topic, Integer partition, long records, int keys) throws Exception {
        String value = "v".repeat(100);
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        "1",
                        "enable.idempotence",
                        false,
                        "linger.ms",
                        5,
                        "batch.size",
                        262144),
                new StringSerializer(),
                new StringSerializer())) {
            List<Future<?>> pending = new ArrayList<>();
            for (long i = 0; i < records; i++) {
                pending.add(p.send(new ProducerRecord<>(topic, partition, "k" + (i % keys), value)));
                if (pending.size() == 10_000) {
                    for (Future<?> f : pending) {
                        f.get();
                    }
                    pending.clear();
                }
            }
            for (Future<?> f : pending) {
                f.get();
            }
        }
    }
}
