package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.KafkaClientListener;
import io.groupkeeper.kafka.container.DeadLetterHeaders;
import io.groupkeeper.kafka.internal.ClientProperties;
import io.groupkeeper.kafka.internal.KafkaAdmin;
import io.groupkeeper.kafka.internal.KafkaClients;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes failed records, raw, to their dead-letter topic and waits for the broker's acknowledgement; checks (or
 * creates) the dead-letter topics at start. One per container; the producer is shared by its workers (thread-safe).
 */
final class DeadLetterPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublisher.class);
    private static final int MAX_STACK_CHARS = 8192;

    /** The send was not acknowledged (the partition stops at the record instead). */
    static final class DeadLetterException extends Exception {
        private static final long serialVersionUID = 1L;

        DeadLetterException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final String group;
    private final Function<String, String> topicOf;
    private final Duration timeout;
    private final Producer<Object, Object> producer;
    private final Map<String, Integer> partitionCounts = new ConcurrentHashMap<>();

    private final KafkaClientListener clientListener;
    private final String clientId;
    private final ContainerConfig<?, ?> config;
    /** Dead-letter topics to create when first used: their source topic did not exist at start. */
    private final Set<String> deferred = ConcurrentHashMap.newKeySet();

    /** The publisher's Kafka clients: its producer and the Admin of deferred topics ({@code REAL} but in the simulator). */
    private final KafkaClients clients;

    DeadLetterPublisher(ContainerConfig<?, ?> config) {
        this(config, Set.of(), KafkaClients.REAL);
    }

    /** {@code deferred}: what {@link #ensureTopics} left to create once their source exists. */
    DeadLetterPublisher(ContainerConfig<?, ?> config, Set<String> deferred, KafkaClients clients) {
        this.config = config;
        this.clients = clients;
        this.deferred.addAll(deferred);
        this.group = config.group();
        this.topicOf = config.deadLetterTopic();
        this.timeout = config.deadLetterTimeout();
        // What a producer understands of the consumer's properties (never its interceptor.classes or client.id).
        Map<String, Object> props = ClientProperties.forProducer(config.kafkaProperties());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "groupkeeper-" + group + "-dlt");
        this.clientListener = config.clientListener();
        props.putAll(config.deadLetterProducerProperties());
        // The producer blocks in send() and partitionsFor() while it has no metadata of the topic (deleted, or not
        // visible to these credentials), up to max.block.ms (60 s by default): bounded here by the dead-letter timeout.
        long maxBlock = props.containsKey(ProducerConfig.MAX_BLOCK_MS_CONFIG)
                ? Long.parseLong(props.get(ProducerConfig.MAX_BLOCK_MS_CONFIG).toString())
                : 60_000L;
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(maxBlock, timeout.toMillis()));
        this.producer = clients.producer(props, bytesSerializer(), bytesSerializer());
        this.clientId = String.valueOf(props.get(ProducerConfig.CLIENT_ID_CONFIG));
        try { // a listener that throws must not leak the producer
            clientListener.producerAdded(clientId, producer);
        } catch (RuntimeException e) {
            LOG.warn("the KafkaClientListener threw on producerAdded({}): {}", clientId, e.toString());
        }
    }

    /**
     * Makes sure the dead-letter topic of every source topic exists: creates the missing ones (as many partitions as
     * the source) when {@code create}, else fails naming them. A missing dead-letter topic whose source does not exist
     * yet is not created now (it would get a partition count of its own, and a topic nobody asked for if the source
     * never comes): it is returned, and created when a first record of its source is dead-lettered. Without the check
     * ({@code checkDeadLetterTopics} false) nothing is looked at: a missing one fails its first send.
     */
    static Set<String> ensureTopics(ContainerConfig<?, ?> config, KafkaClients clients) {
        Map<String, String> dltOf = new LinkedHashMap<>();
        config.topics().forEach(t -> dltOf.put(t, config.deadLetterTopic().apply(t)));
        if (!config.checkDeadLetterTopics()) {
            LOG.info(
                    "dead-letter topic(s) {} not checked at start (checkDeadLetterTopics false): a missing one fails "
                            + "when a record is dead-lettered there",
                    new TreeSet<>(dltOf.values()));
            return Set.of();
        }
        Map<String, Object> props = ClientProperties.forAdmin(config.kafkaProperties());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-" + config.group() + "-dlt-check");
        long timeoutMs = Math.max(1000, config.deadLetterTimeout().toMillis());
        try (KafkaAdmin admin = clients.admin(props)) {
            Set<String> existing = admin.listTopicNames().get(timeoutMs, TimeUnit.MILLISECONDS);
            Set<String> missing = new TreeSet<>(dltOf.values());
            missing.removeAll(existing);
            if (missing.isEmpty()) {
                return Set.of();
            }
            if (!config.createDeadLetterTopics()) {
                throw new IllegalStateException("group " + config.group() + ": dead-letter topic(s) " + missing
                        + " do not exist; the error policy publishes failed records of "
                        + new TreeSet<>(config.topics())
                        + " there. Create them, or enable createDeadLetterTopics "
                        + "(groupkeeper.listener.dead-letter.create-topics=true in the Spring Boot starter)");
            }
            Set<String> sources = new HashSet<>(config.topics());
            sources.retainAll(existing);
            Map<String, TopicDescription> described = new HashMap<>();
            if (!sources.isEmpty()) {
                for (Map.Entry<String, KafkaFuture<TopicDescription>> e : admin.describeTopics(
                                sources, Duration.ofMillis(timeoutMs))
                        .entrySet()) {
                    described.put(e.getKey(), e.getValue().get(timeoutMs, TimeUnit.MILLISECONDS));
                }
            }
            Map<String, NewTopic> create = new LinkedHashMap<>();
            Set<String> later = new TreeSet<>();
            dltOf.forEach((source, dlt) -> {
                if (missing.contains(dlt)) {
                    TopicDescription d = described.get(source);
                    if (d == null) {
                        later.add(dlt);
                        return;
                    }
                    int partitions = Math.max(
                            create.containsKey(dlt) ? create.get(dlt).numPartitions() : 1,
                            d.partitions().size());
                    create.put(dlt, new NewTopic(dlt, Optional.of(partitions), Optional.empty()));
                }
            });
            later.removeAll(create.keySet()); // another, existing source of the same dead-letter topic creates it
            if (!create.isEmpty()) {
                try {
                    admin.createTopics(create.values()).get(timeoutMs, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
                LOG.info("created dead-letter topic(s) {}", create.keySet());
            }
            if (!later.isEmpty()) {
                LOG.info(
                        "dead-letter topic(s) {} not created yet: their source topic does not exist; created with "
                                + "its partition count when its first failed record is dead-lettered",
                        later);
            }
            return later;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("group " + config.group() + ": interrupted checking dead-letter topics", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException(
                    "group " + config.group() + ": cannot check the dead-letter topics " + new TreeSet<>(dltOf.values())
                            + ": " + cause,
                    cause);
        }
    }

    /** Publishes {@code record} with the dead-letter headers; returns the topic once the broker acknowledged it. */
    String publish(ConsumerRecord<ByteBuffer, ByteBuffer> record, Throwable failure, int attempts)
            throws DeadLetterException, InterruptedException {
        return publish(record, failure, attempts, out -> producer.send(objects(out)));
    }

    /**
     * The same, sent by {@code send} (the transactional mode: into the input partition's transaction, acknowledged
     * when written, visible when the transaction commits).
     */
    String publish(
            ConsumerRecord<ByteBuffer, ByteBuffer> record,
            Throwable failure,
            int attempts,
            Function<ProducerRecord<byte[], byte[]>, Future<?>> send)
            throws DeadLetterException, InterruptedException {
        String topic = topicOf.apply(record.topic());
        if (!deferred.isEmpty() && deferred.contains(topic)) {
            createDeferred(topic, record.topic());
        }
        RecordHeaders headers = headers(record, failure, attempts, group);
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            Integer partition = record.partition() < partitionCount(topic) ? record.partition() : null;
            ProducerRecord<byte[], byte[]> out =
                    new ProducerRecord<>(topic, partition, null, bytes(record.key()), bytes(record.value()), headers);
            send.apply(out).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return topic;
        } catch (ExecutionException e) {
            throw new DeadLetterException("send to " + topic + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new DeadLetterException(
                    "send to " + topic + " not acknowledged within " + timeout.toMillis() + " ms", e);
        } catch (KafkaException | IllegalStateException e) {
            throw new DeadLetterException("send to " + topic + " failed: " + e, e);
        }
    }

    /**
     * The dead letter's headers: the record's own, then Spring for Apache Kafka's {@code kafka_dlt-*} (original
     * headers appended, exception headers replacing earlier ones, as its {@code DeadLetterPublishingRecoverer} does),
     * then groupkeeper's earlier {@code groupkeeper.dlt.*} (for one release) and the attempts.
     */
    static RecordHeaders headers(ConsumerRecord<?, ?> record, Throwable failure, int attempts, String group) {
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            headers.add(h);
        }
        for (String h : List.of(
                DeadLetterHeaders.DLT_EXCEPTION_FQCN,
                DeadLetterHeaders.DLT_EXCEPTION_CAUSE_FQCN,
                DeadLetterHeaders.DLT_EXCEPTION_MESSAGE,
                DeadLetterHeaders.DLT_EXCEPTION_STACKTRACE)) {
            headers.remove(h);
        }
        add(headers, DeadLetterHeaders.DLT_ORIGINAL_TOPIC, record.topic());
        headers.add(
                DeadLetterHeaders.DLT_ORIGINAL_PARTITION,
                ByteBuffer.allocate(Integer.BYTES).putInt(record.partition()).array());
        headers.add(
                DeadLetterHeaders.DLT_ORIGINAL_OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(record.offset()).array());
        headers.add(
                DeadLetterHeaders.DLT_ORIGINAL_TIMESTAMP,
                ByteBuffer.allocate(Long.BYTES).putLong(record.timestamp()).array());
        add(
                headers,
                DeadLetterHeaders.DLT_ORIGINAL_TIMESTAMP_TYPE,
                record.timestampType().toString());
        add(headers, DeadLetterHeaders.DLT_ORIGINAL_CONSUMER_GROUP, group);
        add(headers, DeadLetterHeaders.DLT_EXCEPTION_FQCN, failure.getClass().getName());
        // Always, as Spring's: its exception is the listener wrapper, so its root cause is at least the method's own
        Throwable cause = rootCause(failure);
        add(
                headers,
                DeadLetterHeaders.DLT_EXCEPTION_CAUSE_FQCN,
                cause.getClass().getName());
        String message = message(failure, cause);
        if (message != null) {
            add(headers, DeadLetterHeaders.DLT_EXCEPTION_MESSAGE, message);
        }
        add(headers, DeadLetterHeaders.DLT_EXCEPTION_STACKTRACE, stackTrace(failure, Integer.MAX_VALUE));
        add(headers, DeadLetterHeaders.ORIGINAL_TOPIC, record.topic());
        add(headers, DeadLetterHeaders.ORIGINAL_PARTITION, Integer.toString(record.partition()));
        add(headers, DeadLetterHeaders.ORIGINAL_OFFSET, Long.toString(record.offset()));
        add(headers, DeadLetterHeaders.ORIGINAL_TIMESTAMP, Long.toString(record.timestamp()));
        add(headers, DeadLetterHeaders.ORIGINAL_TIMESTAMP_TYPE, record.timestampType().name);
        add(headers, DeadLetterHeaders.GROUP, group);
        add(headers, DeadLetterHeaders.EXCEPTION_CLASS, failure.getClass().getName());
        add(headers, DeadLetterHeaders.EXCEPTION_MESSAGE, String.valueOf(failure.getMessage()));
        add(headers, DeadLetterHeaders.EXCEPTION_STACKTRACE, stackTrace(failure, MAX_STACK_CHARS));
        add(headers, DeadLetterHeaders.ATTEMPTS, Integer.toString(attempts));
        return headers;
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        Set<Throwable> seen = new HashSet<>();
        while (c.getCause() != null && seen.add(c)) {
            c = c.getCause();
        }
        return c;
    }

    /** Spring's: the message, and when the root cause is another exception {@code "; "} and its message. */
    private static String message(Throwable failure, Throwable cause) {
        String message = failure.getMessage();
        if (cause != failure && cause.getMessage() != null) {
            message = message == null ? cause.getMessage() : message + "; " + cause.getMessage();
        }
        return message;
    }

    /** Creates a dead-letter topic deferred at start, with its source's partition count (the source exists now). */
    private synchronized void createDeferred(String topic, String source)
            throws DeadLetterException, InterruptedException {
        if (!deferred.contains(topic)) {
            return;
        }
        Map<String, Object> props = ClientProperties.forAdmin(config.kafkaProperties());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "groupkeeper-" + group + "-dlt-create");
        long timeoutMs = Math.max(1000, timeout.toMillis());
        try (KafkaAdmin admin = clients.admin(props)) {
            int partitions = admin.describeTopics(List.of(source), Duration.ofMillis(timeoutMs))
                    .get(source)
                    .get(timeoutMs, TimeUnit.MILLISECONDS)
                    .partitions()
                    .size();
            try {
                admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                        .get(timeoutMs, TimeUnit.MILLISECONDS);
                LOG.info("created dead-letter topic {} ({} partitions, as {})", topic, partitions, source);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            deferred.remove(topic);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new DeadLetterException("cannot create dead-letter topic " + topic + ": " + cause, cause);
        }
    }

    /** The byte-array serializer as the clients' producers take it (the values are byte arrays). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Serializer<Object> bytesSerializer() {
        return (Serializer) new ByteArraySerializer();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ProducerRecord<Object, Object> objects(ProducerRecord<byte[], byte[]> record) {
        return (ProducerRecord) record;
    }

    /** A copy of the buffer's remaining bytes (null stays null); the buffer is not moved. */
    static byte[] bytes(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** The record with its key and value as byte arrays (for {@code ContainerListener.deadLettered}). */
    static ConsumerRecord<byte[], byte[]> bytes(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
        return new ConsumerRecord<>(
                r.topic(),
                r.partition(),
                r.offset(),
                r.timestamp(),
                r.timestampType(),
                r.serializedKeySize(),
                r.serializedValueSize(),
                bytes(r.key()),
                bytes(r.value()),
                r.headers(),
                r.leaderEpoch());
    }

    /** The topic's partition count; a topic the producer cannot see fails here (the send would block the same). */
    private int partitionCount(String topic) {
        Integer known = partitionCounts.get(topic);
        if (known != null) {
            return known;
        }
        int n = producer.partitionsFor(topic).size();
        partitionCounts.put(topic, n);
        return n;
    }

    private static void add(RecordHeaders headers, String key, String value) {
        headers.add(key, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String stackTrace(Throwable t, int maxChars) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String s = w.toString();
        return s.length() <= maxChars ? s : s.substring(0, maxChars);
    }

    @Override
    public void close() {
        clientListener.producerRemoved(clientId, producer);
        producer.close(Duration.ofSeconds(5));
    }
}
