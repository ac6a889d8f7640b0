package io.groupkeeper.cli.kafka;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link LogBounds} from a Kafka cluster through {@link Admin}: {@code describeTopics} for partition counts and
 * {@code listOffsets} (earliest, latest, for-timestamp) for the bounds. One Admin client, closed with this object.
 * Client properties (security, SASL/SSL) pass through untouched.
 */
public final class KafkaLogBounds implements LogBounds, AutoCloseable {

    private final String bootstrap;
    private final Admin admin;
    private final Duration timeout;
    private final Properties clientProperties;
    /** Created at the first timestamp look-up; guarded by {@code this}. */
    private RecordTimestamps timestamps;

    private boolean closed;

    public KafkaLogBounds(String bootstrap, Properties clientProperties, Duration timeout) {
        this.bootstrap = bootstrap;
        this.timeout = timeout;
        this.clientProperties = clientProperties == null ? new Properties() : clientProperties;
        try {
            this.admin = Admin.create(config(bootstrap, clientProperties, timeout));
        } catch (KafkaException e) {
            // Kafka says "Failed to create new KafkaAdminClient"; the cause names what is wrong with the value.
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            throw new AdminException("--bootstrap '" + bootstrap + "': " + oneLine(cause), e);
        }
    }

    /** The Admin client config: the given properties, then bootstrap servers and timeouts unless already set. */
    public static Properties config(String bootstrap, Properties clientProperties, Duration timeout) {
        Properties p = new Properties();
        if (clientProperties != null) {
            p.putAll(clientProperties);
        }
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-cli");
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(timeout.toMillis()));
        return p;
    }

    public Admin admin() {
        return admin;
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics) {
        Map<String, Integer> counts = new HashMap<>();
        if (topics.isEmpty()) {
            return counts;
        }
        Map<String, KafkaFuture<TopicDescription>> futures =
                admin.describeTopics(topics).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : futures.entrySet()) {
            try {
                counts.put(
                        e.getKey(),
                        get(e.getValue(), "describe topic " + e.getKey())
                                .partitions()
                                .size());
            } catch (UnknownTopic u) {
                // absent from the result: unknown to Kafka
            }
        }
        return counts;
    }

    @Override
    public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.earliest(), "earliest offsets", false);
    }

    @Override
    public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.latest(), "log-end offsets", false);
    }

    /**
     * As {@link #latest}, for a monitor: a partition Kafka cannot answer for (its leader offline) is left out, not the
     * whole batch; it fails only when no partition could be answered, which is Kafka's problem, not one partition's.
     */
    public Map<TopicPartition, Long> latestAvailable(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.latest(), "log-end offsets", true);
    }

    @Override
    public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, Instant timestamp) {
        Map<TopicPartition, Long> all =
                list(partitions, OffsetSpec.forTimestamp(timestamp.toEpochMilli()), "offsets for " + timestamp);
        all.values().removeIf(o -> o < 0); // no record at or after the time
        return all;
    }

    @Override
    public Map<TopicPartition, Optional<Instant>> recordTimestamps(Map<TopicPartition, Long> offsets) {
        return recordTimestamps(offsets, latest(offsets.keySet()));
    }

    /**
     * As {@link #recordTimestamps(Map)} with log ends already known (a partition without one is not answered). One
     * {@code KafkaConsumer} without a group reads one small fetch per partition; one look-up at a time.
     */
    public synchronized Map<TopicPartition, Optional<Instant>> recordTimestamps(
            Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> logEnds) {
        if (closed) {
            throw new AdminException("Kafka at " + bootstrap + ": closed");
        }
        if (offsets.isEmpty()) {
            return Map.of();
        }
        if (timestamps == null) {
            timestamps = new RecordTimestamps(bootstrap, clientProperties, timeout);
        }
        try {
            return timestamps.firstRecordAtOrAfter(offsets, logEnds);
        } catch (KafkaException e) {
            throw new AdminException("Kafka at " + bootstrap + ": reading record timestamps failed: " + oneLine(e), e);
        }
    }

    /** Whether the cluster answers a {@code describeCluster} within the timeout. */
    public boolean reachable() {
        try {
            admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Map<TopicPartition, Long> list(Collection<TopicPartition> partitions, OffsetSpec spec, String what) {
        return list(partitions, spec, what, false);
    }

    private Map<TopicPartition, Long> list(
            Collection<TopicPartition> partitions, OffsetSpec spec, String what, boolean partial) {
        Map<org.apache.kafka.common.TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions) {
            request.put(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition()), spec);
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        if (request.isEmpty()) {
            return out;
        }
        ListOffsetsResult result = admin.listOffsets(request);
        AdminException failed = null;
        for (org.apache.kafka.common.TopicPartition ktp : request.keySet()) {
            try {
                out.put(
                        new TopicPartition(ktp.topic(), ktp.partition()),
                        get(result.partitionResult(ktp), what + " of " + ktp).offset());
            } catch (UnknownTopic u) {
                // absent
            } catch (AdminException e) {
                if (!partial) {
                    throw e;
                }
                failed = e;
            }
        }
        if (failed != null && out.isEmpty()) {
            throw failed;
        }
        return out;
    }

    private <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnknownTopicOrPartitionException) {
                throw new UnknownTopic();
            }
            throw new AdminException("Kafka at " + bootstrap + ": " + what + " failed: " + oneLine(cause), cause);
        } catch (TimeoutException e) {
            throw new AdminException(
                    "Kafka at " + bootstrap + ": " + what + " timed out after " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted while asking Kafka at " + bootstrap);
        }
    }

    static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return m.replaceAll("\\s+", " ");
    }

    @Override
    public String describe() {
        return "Kafka at " + bootstrap;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (timestamps != null) {
                timestamps.close();
            }
        }
        admin.close(Duration.ofSeconds(5));
    }

    /** Internal marker: the topic or partition does not exist. */
    private static final class UnknownTopic extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownTopic() {
            super(null, null, false, false);
        }
    }
}
