package io.groupkeeper.kafka.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.kafka.internal.KafkaAdmin;
import io.groupkeeper.kafka.internal.KafkaClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@link KafkaModel} against the real broker: the same calls, through the adapter's port ({@code KafkaClients}),
 * on an in-process Kafka ({@link EmbeddedKafka}) and on the model, with the same outcomes: what an
 * {@code initTransactions()} does to the previous epoch's producer and open transaction, what {@code read_committed}
 * readers and a stable offsets read see (an open transaction's offsets are not seen: the model first failed the read
 * while one was open, as if {@code UNSTABLE_OFFSET_COMMIT} were retried until the timeout; the broker answers none), and how a consumer with {@code auto.offset.reset=none} reads, seeks and
 * fails out of range. Where the model differs on purpose (a poll returns everything at once; requests of the model
 * without faults answer at once) the scenario does not depend on it.
 */
class KafkaModelContractIT {

    private static EmbeddedKafka broker;
    private static int run;

    @BeforeAll
    static void start() {
        broker = EmbeddedKafka.builder().build().start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** One side: the real broker or the model, with topics made and plain records appended. */
    private interface Side {
        KafkaClients clients();

        Map<String, Object> properties();

        void createTopic(String topic, int partitions);

        void append(TopicPartition tp, String value);

        /** Retention: the records of {@code tp} before {@code offset} are deleted (the log start moves there). */
        void deleteBefore(TopicPartition tp, long offset);
    }

    private static Side real() {
        return new Side() {
            @Override
            public KafkaClients clients() {
                return KafkaClients.REAL;
            }

            @Override
            public Map<String, Object> properties() {
                Map<String, Object> p = broker.clientProperties();
                p.put("default.api.timeout.ms", 3_000);
                p.put("request.timeout.ms", 2_000);
                return p;
            }

            @Override
            public void createTopic(String topic, int partitions) {
                broker.createTopic(topic, partitions);
            }

            @Override
            public void append(TopicPartition tp, String value) {
                try (KafkaProducer<String, String> p =
                        new KafkaProducer<>(properties(), new StringSerializer(), new StringSerializer())) {
                    p.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value))
                            .get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void deleteBefore(TopicPartition tp, long offset) {
                try (org.apache.kafka.clients.admin.Admin a =
                        org.apache.kafka.clients.admin.Admin.create(properties())) {
                    a.deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(offset)))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    private static Side model() {
        KafkaModel kafka = new KafkaModel(
                new Random(1),
                new KafkaModel.Time() {
                    @Override
                    public long millis() {
                        return 0;
                    }

                    @Override
                    public void sleep(long millis) {}
                },
                KafkaModel.Faults.NONE);
        return new Side() {
            @Override
            public KafkaClients clients() {
                return new KafkaClients() {
                    @Override
                    public <K, V> Consumer<K, V> consumer(
                            Map<String, Object> properties,
                            org.apache.kafka.common.serialization.Deserializer<K> keys,
                            org.apache.kafka.common.serialization.Deserializer<V> values) {
                        return new ModelConsumer<>(kafka, 500);
                    }

                    @Override
                    public Producer<Object, Object> producer(
                            Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values) {
                        return new ModelProducer(
                                kafka, (String) properties.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG));
                    }

                    @Override
                    public KafkaAdmin admin(Map<String, Object> properties) {
                        return new ModelAdmin(kafka);
                    }

                    @Override
                    public java.util.concurrent.ExecutorService pool(String name, int threads) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public java.util.concurrent.ScheduledExecutorService timer(String name) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public long nanoTime() {
                        return 0;
                    }

                    @Override
                    public boolean await(CompletableFuture<?> f, long nanos) {
                        return f.isDone();
                    }
                };
            }

            @Override
            public Map<String, Object> properties() {
                return new HashMap<>(Map.of("bootstrap.servers", "model:9092"));
            }

            @Override
            public void createTopic(String topic, int partitions) {
                kafka.createTopic(topic, partitions);
            }

            @Override
            public void append(TopicPartition tp, String value) {
                kafka.append(tp, null, value);
            }

            @Override
            public void deleteBefore(TopicPartition tp, long offset) {
                kafka.deleteBefore(tp, offset);
            }
        };
    }

    @Test
    void initTransactionsFencesThePreviousEpochAndAbortsItsOpenTransaction() throws Exception {
        assertThat(fencing(model())).isEqualTo(fencing(real()));
    }

    @Test
    void aConsumerReadsSeeksAndFailsOutOfRangeAlike() {
        assertThat(consuming(model())).isEqualTo(consuming(real()));
    }

    @Test
    void retentionMovesTheLogStartAndAPositionBelowItFailsOutOfRange() {
        assertThat(retention(model())).isEqualTo(retention(real()));
    }

    /**
     * Producer A opens a transaction with an output and a group offset; B (same id) inits; A's commit is fenced;
     * a stable read of the offset meanwhile; B commits an output and an offset. Returns what was observed.
     */
    private static List<String> fencing(Side side) throws Exception {
        String n = "c" + (++run);
        String out = n + "-out";
        String group = n + "-group";
        TopicPartition input = new TopicPartition(n + "-in", 0);
        side.createTopic(out, 1);
        side.createTopic(input.topic(), 1);
        List<String> seen = new ArrayList<>();
        Producer<Object, Object> a = producer(side, n + "-tx");
        a.initTransactions();
        a.beginTransaction();
        a.send(new ProducerRecord<>(out, 0, "k", "from-a")).get(10, TimeUnit.SECONDS);
        a.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(5)), new ConsumerGroupMetadata(group));
        try (KafkaAdmin admin = side.clients().admin(side.properties())) {
            seen.add("stable read with A open: " + stableRead(admin, group, input));
            Producer<Object, Object> b = producer(side, n + "-tx");
            b.initTransactions(); // fences A, aborts its transaction
            seen.add("stable read after B's init: " + stableRead(admin, group, input));
            try {
                a.commitTransaction();
                seen.add("A committed");
            } catch (ProducerFencedException e) {
                seen.add("A fenced");
            }
            seen.add("read_committed after A: " + readCommitted(side, new TopicPartition(out, 0)));
            b.beginTransaction();
            b.send(new ProducerRecord<>(out, 0, "k", "from-b")).get(10, TimeUnit.SECONDS);
            b.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(7)), new ConsumerGroupMetadata(group));
            b.commitTransaction();
            b.beginTransaction();
            b.send(new ProducerRecord<>(out, 0, "k", "aborted-b")).get(10, TimeUnit.SECONDS);
            b.abortTransaction();
            seen.add("read_committed after B: " + readCommitted(side, new TopicPartition(out, 0)));
            seen.add("stable read after B: " + stableRead(admin, group, input));
            a.close(Duration.ZERO);
            b.close(Duration.ofSeconds(5));
        }
        return seen;
    }

    private static Producer<Object, Object> producer(Side side, String transactionalId) {
        Map<String, Object> props = side.properties();
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        @SuppressWarnings({"unchecked", "rawtypes"})
        Serializer<Object> s = (Serializer) new StringSerializer();
        return side.clients().producer(props, s, s);
    }

    private static String stableRead(KafkaAdmin admin, String group, TopicPartition tp) {
        try {
            Map<TopicPartition, OffsetAndMetadata> m =
                    admin.stableGroupOffsets(group, List.of(tp)).get(10, TimeUnit.SECONDS);
            OffsetAndMetadata o = m.get(tp);
            return o == null ? "none" : String.valueOf(o.offset());
        } catch (Exception e) {
            return "fails";
        }
    }

    private static List<String> readCommitted(Side side, TopicPartition tp) {
        Map<String, Object> props = side.properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (Consumer<String, String> c =
                side.clients().consumer(props, new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long end = c.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).records(tp).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    /** A new topic of one partition holding ten records, "v0".."v9"; its partition. */
    private static TopicPartition tenRecords(Side side, String prefix) {
        TopicPartition tp = new TopicPartition(prefix + (++run) + "-in", 0);
        side.createTopic(tp.topic(), 1);
        for (int i = 0; i < 10; i++) {
            side.append(tp, "v" + i);
        }
        return tp;
    }

    /** A consumer of {@code tp} alone ({@code auto.offset.reset=none}, no auto commit), assigned it. */
    private static Consumer<String, String> assigned(Side side, TopicPartition tp) {
        Map<String, Object> props = side.properties();
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Consumer<String, String> c = side.clients().consumer(props, new StringDeserializer(), new StringDeserializer());
        c.assign(List.of(tp));
        return c;
    }

    /**
     * Ten records; the records before 6 are deleted; the log's start and end; a consumer at 4 (below the start) fails
     * its poll out of range, naming its position, and still stands there; a seek to the start reads the rest. (A
     * consumer that fetched records before they were deleted may still hand them out from its buffer; the model
     * keeps no such buffer: it fails at once.)
     */
    private static List<String> retention(Side side) {
        TopicPartition tp = tenRecords(side, "r");
        side.deleteBefore(tp, 6);
        List<String> seen = new ArrayList<>();
        try (Consumer<String, String> c = assigned(side, tp)) {
            seen.add("start " + c.beginningOffsets(List.of(tp)).get(tp) + ", end "
                    + c.endOffsets(List.of(tp)).get(tp));
            c.seek(tp, 4);
            OffsetOutOfRangeException e = catchThrowableOfType(
                    () -> {
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                        while (System.nanoTime() < until) {
                            c.poll(Duration.ofMillis(200));
                        }
                    },
                    OffsetOutOfRangeException.class);
            seen.add("out of range at "
                    + (e == null ? "none" : e.offsetOutOfRangePartitions().get(tp)) + ", position " + c.position(tp));
            c.seek(tp, c.beginningOffsets(List.of(tp)).get(tp));
            List<Long> rest = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (rest.size() < 4 && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).records(tp).forEach(r -> rest.add(r.offset()));
            }
            seen.add("read from the start " + rest);
        }
        return seen;
    }

    /** Ten records; seek to 3 and read to the end; the position; seek past the end and poll. */
    private static List<String> consuming(Side side) {
        TopicPartition tp = tenRecords(side, "c");
        List<String> seen = new ArrayList<>();
        try (Consumer<String, String> c = assigned(side, tp)) {
            seen.add("end " + c.endOffsets(List.of(tp)).get(tp) + ", start "
                    + c.beginningOffsets(List.of(tp)).get(tp));
            c.seek(tp, 3);
            List<Long> offsets = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (offsets.size() < 7 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r :
                        c.poll(Duration.ofMillis(200)).records(tp)) {
                    offsets.add(r.offset());
                }
            }
            seen.add("read " + offsets + ", position " + c.position(tp));
            c.pause(List.of(tp));
            seen.add("paused poll: " + c.poll(Duration.ofMillis(200)).count() + " records, paused "
                    + c.paused().equals(java.util.Set.of(tp)));
            c.resume(List.of(tp));
            c.seek(tp, 25);
            assertThatThrownBy(() -> {
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                        while (System.nanoTime() < until) {
                            c.poll(Duration.ofMillis(200));
                        }
                    })
                    .isInstanceOf(OffsetOutOfRangeException.class);
            seen.add("out of range at 25");
            assertThatThrownBy(() -> c.seek(new TopicPartition(tp.topic(), 7), 0))
                    .isInstanceOf(IllegalStateException.class);
            seen.add("seek of an unassigned partition refused");
        }
        return seen;
    }
}
