package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's {@link FencedOffsets}: a transactional producer per partition, transactional id
 * {@code groupkeeper-mirror|<topic>|<partition>|<kafka group>}, writing with {@code sendOffsetsToTransaction}; an
 * Admin client describes Kafka's group.
 */
final class KafkaFencedOffsets implements FencedOffsets {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaFencedOffsets.class);
    static final String METADATA = "groupkeeper-mirror";

    private final String group;
    private final String kafkaGroup;
    private final Map<String, Object> adminConfig;
    private final Map<String, Object> producerConfig;
    private final Duration timeout;
    private Admin admin;

    KafkaFencedOffsets(String group, String kafkaGroup, Map<String, ?> kafkaProperties, Duration timeout) {
        this.group = group;
        this.kafkaGroup = kafkaGroup;
        this.adminConfig = adminConfig(kafkaProperties, group);
        this.producerConfig = producerConfig(kafkaProperties, timeout);
        this.timeout = timeout;
    }

    /** The Admin client's share of the consumer's properties (bootstrap, security ...), with its own client id. */
    static Map<String, Object> adminConfig(Map<String, ?> kafkaProperties, String group) {
        Map<String, Object> config = ClientProperties.forAdmin(kafkaProperties);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-mirror-" + group);
        return config;
    }

    /** The producers' share of the consumer's properties; transactional ids are set per partition. */
    static Map<String, Object> producerConfig(Map<String, ?> kafkaProperties, Duration timeout) {
        Map<String, Object> config = ClientProperties.forProducer(kafkaProperties);
        int ms = (int) Math.max(1000, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, ms); // bounds initTransactions and commitTransaction
        int request = Math.min(ms, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, request);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, request + 1000); // ≥ request timeout + linger
        return config;
    }

    /** The transactional id of a partition's mirror producer; '|' appears in no topic name, so ids never collide. */
    static String transactionalId(String kafkaGroup, TopicPartition tp) {
        return "groupkeeper-mirror|" + tp.topic() + "|" + tp.partition() + "|" + kafkaGroup;
    }

    @Override
    public Writer open(TopicPartition tp) {
        Map<String, Object> config = new HashMap<>(producerConfig);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(kafkaGroup, tp));
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "groupkeeper-mirror-" + group + "-" + kafka(tp));
        KafkaProducer<byte[], byte[]> producer = null;
        try {
            producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
            producer.initTransactions();
        } catch (RuntimeException e) {
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            throw e;
        }
        return new ProducerWriter(producer, kafka(tp));
    }

    private final class ProducerWriter implements Writer {
        private final KafkaProducer<byte[], byte[]> producer;
        private final org.apache.kafka.common.TopicPartition tp;

        ProducerWriter(KafkaProducer<byte[], byte[]> producer, org.apache.kafka.common.TopicPartition tp) {
            this.producer = producer;
            this.tp = tp;
        }

        @Override
        public void write(long offset) {
            try {
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(
                        Map.of(tp, new OffsetAndMetadata(offset, METADATA)), new ConsumerGroupMetadata(kafkaGroup));
                producer.commitTransaction();
            } catch (ProducerFencedException | InvalidProducerEpochException fenced) {
                throw new Fenced(fenced);
            } catch (KafkaException ke) {
                try {
                    producer.abortTransaction();
                } catch (KafkaException abortFailed) { // a fatal state: a new producer for the next commit
                    LOG.debug("aborting the mirror's transaction of {} failed: {}", tp, abortFailed.toString());
                    throw new Failed(ke, false);
                }
                throw new Failed(ke, true);
            }
        }

        @Override
        public void close(Duration wait) {
            producer.close(wait);
        }
    }

    @Override
    public String liveMembers() {
        try {
            Admin a;
            synchronized (this) {
                if (admin == null) {
                    admin = Admin.create(adminConfig);
                }
                a = admin;
            }
            ConsumerGroupDescription d = a.describeConsumerGroups(List.of(kafkaGroup))
                    .describedGroups()
                    .get(kafkaGroup)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return d.members().isEmpty()
                    ? null
                    : "the Kafka group has " + d.members().size() + " live member(s) of its own (" + d.groupState()
                            + ")";
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null; // unknown: the writes go ahead (the check guards an operator's mistake, not the ordering)
        }
    }

    @Override
    public void close(Duration wait) {
        Admin a;
        synchronized (this) {
            a = admin;
        }
        if (a != null) {
            try {
                a.close(wait);
            } catch (RuntimeException e) {
                LOG.debug("closing the mirror's Admin client failed: {}", e.toString());
            }
        }
    }

    private static org.apache.kafka.common.TopicPartition kafka(TopicPartition p) {
        return new org.apache.kafka.common.TopicPartition(p.topic(), p.partition());
    }
}
