package io.groupkeeper.spring.internal;

import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import io.groupkeeper.zkprotocol.admin.SourceOffsets;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The switch from a Spring Kafka {@code @KafkaListener} service: before a listener's container starts, what its group
 * committed in Kafka (Kafka's consumer-group offsets) is written into ZooKeeper for the listener's partitions that have
 * no offset there yet, so the first owner resumes where the Kafka group stopped — nothing repeated, nothing skipped.
 * Partitions with a ZooKeeper offset are never touched (groupkeeper's offsets win once they exist). One INFO line says
 * what was taken.
 *
 * <p>Two processes of one group starting at once both take the same Kafka offsets (harmless); a process that starts
 * while another already commits to ZooKeeper can only move a partition back to the Kafka offset, repeating records,
 * never skipping them.
 */
final class KafkaOffsetTakeover {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaOffsetTakeover.class);
    /** The metadata groupkeeper's mirror writes with Kafka offsets: those copy ZooKeeper's, never a source. */
    private static final String MIRROR_METADATA = "groupkeeper-mirror";

    private KafkaOffsetTakeover() {}

    /** The partition counts and log bounds the import needs, from Kafka's Admin. */
    private record AdminLogBounds(Admin admin, Duration timeout) implements LogBounds {
        @Override
        public Map<String, Integer> partitionCounts(Collection<String> topics) {
            Map<String, Integer> counts = new HashMap<>();
            admin.describeTopics(topics).topicNameValues().forEach((t, f) -> {
                try {
                    counts.put(
                            t,
                            f.get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                                    .partitions()
                                    .size());
                } catch (Exception e) { // unknown topic: absent
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            return counts;
        }

        @Override
        public Map<io.groupkeeper.TopicPartition, Long> earliest(Collection<io.groupkeeper.TopicPartition> ps) {
            return offsets(ps, OffsetSpec.earliest());
        }

        @Override
        public Map<io.groupkeeper.TopicPartition, Long> latest(Collection<io.groupkeeper.TopicPartition> ps) {
            return offsets(ps, OffsetSpec.latest());
        }

        @Override
        public Map<io.groupkeeper.TopicPartition, Long> offsetsForTimestamp(
                Collection<io.groupkeeper.TopicPartition> ps, Instant timestamp) {
            return offsets(ps, OffsetSpec.forTimestamp(timestamp.toEpochMilli()));
        }

        private Map<io.groupkeeper.TopicPartition, Long> offsets(
                Collection<io.groupkeeper.TopicPartition> ps, OffsetSpec spec) {
            Map<TopicPartition, OffsetSpec> query = new HashMap<>();
            ps.forEach(p -> query.put(new TopicPartition(p.topic(), p.partition()), spec));
            Map<io.groupkeeper.TopicPartition, Long> out = new HashMap<>();
            try {
                admin.listOffsets(query)
                        .all()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .forEach((tp, info) -> {
                            if (info.offset() >= 0) {
                                out.put(io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition()), info.offset());
                            }
                        });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("log offsets of {} unknown: {}", ps, e.toString());
            }
            return out;
        }

        @Override
        public String describe() {
            return "kafka (the listener's consumer settings)";
        }
    }

    /** Takes over; returns what was written (empty when nothing was to take). */
    static Map<TopicPartition, Long> takeOver(
            ZooKeeperStore store,
            String listener,
            String group,
            List<String> topics,
            Map<String, Object> consumerProperties,
            Duration timeout) {
        Map<String, Object> adminProps = new HashMap<>();
        Set<String> known = AdminClientConfig.configNames();
        consumerProperties.forEach((k, v) -> {
            if (known.contains(k) && v != null) {
                adminProps.put(k, v);
            }
        });
        adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-" + group + "-takeover");
        Map<io.groupkeeper.TopicPartition, Long> candidates = new TreeMap<>();
        try (Admin kafkaAdmin = Admin.create(adminProps)) {
            Map<TopicPartition, OffsetAndMetadata> kafka = kafkaAdmin
                    .listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            kafka.forEach((tp, o) -> {
                if (o != null && topics.contains(tp.topic()) && !MIRROR_METADATA.equals(o.metadata())) {
                    candidates.put(io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition()), o.offset());
                }
            });
            if (candidates.isEmpty()) {
                return Map.of();
            }
            try (GroupAdmin admin = ZooKeeperAdmin.builder()
                    .store(store)
                    .logBounds(new AdminLogBounds(kafkaAdmin, timeout))
                    .build()) {
                if (admin.listGroups().stream().anyMatch(g -> g.group().equals(group))) { // (a new group has none)
                    admin.exportOffsets(group).offsets().keySet().forEach(candidates::remove); // ZooKeeper's win
                }
                if (candidates.isEmpty()) {
                    return Map.of();
                }
                // a migration: an offset the log no longer has is clamped into it, as the consumer would
                admin.executeMigration(group, "kafka-group", SourceOffsets.of("kafka group " + group, candidates));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading Kafka's offsets of group " + group, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException(
                    "cannot read Kafka's committed offsets of group " + group + " (to take "
                            + "them over; groupkeeper.listener.take-over-kafka-offsets=false skips this): " + cause,
                    cause);
        }
        Map<TopicPartition, Long> taken = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        candidates.forEach((tp, o) -> taken.put(new TopicPartition(tp.topic(), tp.partition()), o));
        LOG.info(
                "groupkeeper listener '{}': took over Kafka's committed offsets of group {} for the partitions without "
                        + "an offset in ZooKeeper: {}",
                listener,
                group,
                taken);
        return taken;
    }
}
