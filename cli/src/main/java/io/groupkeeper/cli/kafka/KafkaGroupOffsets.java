package io.groupkeeper.cli.kafka;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/** Reads and writes the committed offsets of a Kafka consumer group ({@code migrate kafka-native}). */
public final class KafkaGroupOffsets {

    private final Admin admin;
    private final String bootstrap;
    private final Duration timeout;

    public KafkaGroupOffsets(Admin admin, String bootstrap, Duration timeout) {
        this.admin = admin;
        this.bootstrap = bootstrap;
        this.timeout = timeout;
    }

    /** The group's committed offsets (partitions without one are left out). */
    public SourceOffsets read(String kafkaGroup) {
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = get(
                () -> admin.listConsumerGroupOffsets(kafkaGroup)
                        .partitionsToOffsetAndMetadata()
                        .get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS),
                "read offsets of consumer group " + kafkaGroup);
        SortedMap<TopicPartition, Long> out = new TreeMap<>();
        Map<TopicPartition, String> origins = new HashMap<>();
        offsets.forEach((ktp, om) -> {
            if (om != null && om.offset() >= 0) {
                TopicPartition tp = new TopicPartition(ktp.topic(), ktp.partition());
                out.put(tp, om.offset());
                origins.put(tp, "consumer group " + kafkaGroup);
            }
        });
        return new SourceOffsets("kafka-native " + bootstrap + " group " + kafkaGroup, out, origins);
    }

    /** Writes offsets to the group in one request (Kafka refuses while the group has active members). */
    public void write(String kafkaGroup, Map<TopicPartition, Long> offsets) {
        Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> request = new HashMap<>();
        offsets.forEach((tp, o) -> request.put(
                new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()), new OffsetAndMetadata(o)));
        get(
                () -> admin.alterConsumerGroupOffsets(kafkaGroup, request)
                        .all()
                        .get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS),
                "write offsets of consumer group " + kafkaGroup);
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private <T> T get(Call<T> call, String what) {
        try {
            return call.call();
        } catch (ExecutionException e) {
            throw new AdminException(
                    "Kafka at " + bootstrap + ": " + what + " failed: " + KafkaLogBounds.oneLine(e.getCause()),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new AdminException("Kafka at " + bootstrap + ": " + what + " timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted while asking Kafka at " + bootstrap);
        } catch (Exception e) {
            throw new AdminException(
                    "Kafka at " + bootstrap + ": " + what + " failed: " + KafkaLogBounds.oneLine(e), e);
        }
    }
}
