package io.groupkeeper.cli.kafka;

import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Finds the timestamp of the first data record at or after an offset, per partition, with one {@link KafkaConsumer}
 * that has no group ({@code assign} + {@code seek}, nothing committed) and fetches little per partition. Where a
 * fetch from the offset returns no record and moves the position to the log end, no data record follows the offset:
 * only transaction markers (control records, which consumers never see) or nothing — the answer is "none", which
 * lag in time reads as caught up. An offset below the log start reads from the log start.
 *
 * <p>Reads uncommitted (as Kafka's own lag tools): records of open transactions count. Not thread-safe: one caller at
 * a time ({@link KafkaLogBounds} synchronizes).
 */
final class RecordTimestamps implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Duration timeout;

    RecordTimestamps(String bootstrap, Properties clientProperties, Duration timeout) {
        this.timeout = timeout;
        Properties p = new Properties();
        Set<String> known = ConsumerConfig.configNames();
        if (clientProperties != null) {
            clientProperties.stringPropertyNames().stream()
                    .filter(known::contains)
                    .forEach(k -> p.setProperty(k, clientProperties.getProperty(k)));
        }
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "groupkeeper-cli-timestamps");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // below the log start: the first record left
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "16384"); // one batch is all we need
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        p.putIfAbsent(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        p.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * For each partition of {@code offsets} whose log end is known: the timestamp of the first data record at or after
     * the offset, or empty when none follows it. Partitions not answered within the timeout are absent.
     */
    Map<TopicPartition, Optional<Instant>> firstRecordAtOrAfter(
            Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds) {
        Map<TopicPartition, Optional<Instant>> out = new HashMap<>();
        Map<org.apache.kafka.common.TopicPartition, TopicPartition> open = new HashMap<>();
        Map<org.apache.kafka.common.TopicPartition, Long> from = new HashMap<>();
        offsets.forEach((tp, offset) -> {
            Long end = logEnds.get(tp);
            if (end == null) {
                return; // unknown partition
            }
            if (offset >= end) {
                out.put(tp, Optional.empty());
                return;
            }
            org.apache.kafka.common.TopicPartition ktp =
                    new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition());
            open.put(ktp, tp);
            from.put(ktp, offset);
        });
        if (open.isEmpty()) {
            return out;
        }
        try {
            consumer.assign(new ArrayList<>(open.keySet()));
            from.forEach((ktp, offset) -> consumer.seek(ktp, Math.max(0, offset)));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!open.isEmpty() && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                List<org.apache.kafka.common.TopicPartition> done = new ArrayList<>();
                for (Map.Entry<org.apache.kafka.common.TopicPartition, TopicPartition> e : open.entrySet()) {
                    org.apache.kafka.common.TopicPartition ktp = e.getKey();
                    long target = from.get(ktp);
                    Optional<ConsumerRecord<byte[], byte[]>> first = records.records(ktp).stream()
                            .filter(r -> r.offset() >= target)
                            .findFirst();
                    if (first.isPresent()) {
                        long ts = first.get().timestamp();
                        if (ts >= 0) { // -1: no timestamp (old message format)
                            out.put(e.getValue(), Optional.of(Instant.ofEpochMilli(ts)));
                        }
                        done.add(ktp);
                    } else if (consumer.position(ktp, timeout) >= logEnds.get(e.getValue())) {
                        out.put(e.getValue(), Optional.empty()); // only control records (or nothing) up to the end
                        done.add(ktp);
                    }
                }
                if (!done.isEmpty()) {
                    consumer.pause(done);
                    done.forEach(open::remove);
                }
            }
        } finally {
            consumer.assign(List.of());
        }
        return out;
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    }
}
