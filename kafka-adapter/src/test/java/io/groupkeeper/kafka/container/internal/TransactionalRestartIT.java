package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.embedded.EmbeddedKafka;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.fixtures.Keepers;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transactional listener container through a restart of the Kafka broker (the transaction coordinator, the group
 * coordinator holding the offsets of record and every partition leader go away together, and come back on the same
 * log directory and ports): every input produced before, during and after the restart is in the output once for a
 * {@code read_committed} reader. In this package to see the container's own bookkeeping of outputs sent.
 */
class TransactionalRestartIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private EmbeddedKafka kafka;
    private Path kafkaDir;

    @AfterEach
    void closeAll() throws Exception {
        Keepers.closeQuietly(toClose);
        if (kafka != null) {
            kafka.close();
        }
        if (kafkaDir != null) {
            try (Stream<Path> files = Files.walk(kafkaDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void everyInputProducedBeforeDuringAndAfterABrokerRestartIsInTheOutputOnce() throws Exception {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.startDefault();
        toClose.add(zk);
        kafkaDir = Files.createTempDirectory("txc-restart-kafka");
        kafka = EmbeddedKafka.builder().logDir(kafkaDir).build().start();
        String in = "in";
        String out = "out";
        kafka.createTopic(in, 2);
        kafka.createTopic(out, 1);
        String bootstrap = kafka.bootstrapServers();
        AtomicBoolean held = new AtomicBoolean();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        GroupKeeper keeper = Keepers.started(
                ZooKeeperStore.builder()
                        .connectString(zk.connectString())
                        .sessionTimeout(Duration.ofSeconds(10))
                        .build(),
                toClose);
        @SuppressWarnings("unchecked")
        DefaultListenerContainer<String, String> container =
                (DefaultListenerContainer<String, String>) ListenerContainer.<String, String>builder(keeper)
                        .group("restart")
                        .topics(in)
                        .kafkaProperty("bootstrap.servers", bootstrap)
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .transactional(new StringSerializer(), new StringSerializer())
                        .pollTimeout(Duration.ofMillis(200))
                        // the producers' max.block.ms: the commit that meets the broker gone fails within the downtime
                        .consumerOptions(b -> b.startPosition(StartPosition.earliest())
                                .commitInterval(Duration.ofMillis(200))
                                .kafkaTimeout(Duration.ofSeconds(2)))
                        .recordHandler(r -> {
                            HandlerContext.<String, String>sender().send(out, r.key(), json(r));
                            if (r.value().equals("hold") && held.compareAndSet(false, true)) {
                                holding.countDown(); // a transaction open, with outputs, when the broker goes away
                                release.await();
                            }
                        })
                        .build();
        toClose.add(container);
        container.start();
        KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        "all",
                        "enable.idempotence",
                        false,
                        "linger.ms",
                        0,
                        "delivery.timeout.ms",
                        120_000,
                        "max.block.ms",
                        60_000),
                new StringSerializer(),
                new StringSerializer());
        toClose.add(producer);

        produce(producer, in, "before", 100);
        await().atMost(WAIT).until(() -> readCommitted(bootstrap, out).size() >= 100);

        // The handler holds its partition's transaction open (the records fetched with it before it: their outputs in
        // it)
        for (int i = 0; i < 50; i++) {
            producer.send(new ProducerRecord<>(in, 0, "p" + i, "pre"));
        }
        producer.send(new ProducerRecord<>(in, 0, "h", "hold"));
        producer.flush();
        assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // During: a producer keeps writing while the broker goes down for 4 s and comes back; the held handler returns
        // while it is down (its output and the commit go to a broker that is not there).
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicInteger during = new AtomicInteger();
        Thread writer = new Thread(
                () -> {
                    while (producing.get()) {
                        producer.send(new ProducerRecord<>(in, "d" + during.get(), "during"));
                        during.incrementAndGet();
                        await().pollDelay(Duration.ofMillis(20)).until(() -> true); // a steady trickle
                    }
                },
                "restart-writer");
        writer.start();
        await().atMost(WAIT).until(() -> during.get() >= 20);
        int port = kafka.port();
        int controllerPort = kafka.controllerPort();
        kafka.close();
        release.countDown();
        await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5)).until(() -> true); // the downtime
        kafka = EmbeddedKafka.builder()
                .port(port)
                .controllerPort(controllerPort)
                .logDir(kafkaDir)
                .build()
                .start();
        int atRestart = during.get();
        await().atMost(WAIT).until(() -> during.get() >= atRestart + 20);
        producing.set(false);
        writer.join(WAIT.toMillis());
        producer.flush();

        produce(producer, in, "after", 100);

        Set<String> inputs = inputs(bootstrap, in);
        assertThat(inputs).hasSizeGreaterThanOrEqualTo(100 + 40 + 100);
        await().atMost(WAIT).until(() -> readCommitted(bootstrap, out).keySet().containsAll(inputs));
        Map<String, Integer> seen = readCommitted(bootstrap, out);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs);
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));

        // The outputs the failed transaction held were not kept tracked: each would have held every later output of
        // its partition in the container's bookkeeping for good.
        container.close();
        assertThat(container.failedOutputsTracked()).isZero();
    }

    private static void produce(KafkaProducer<String, String> producer, String topic, String what, int count)
            throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, what.charAt(0) + Integer.toString(i), what));
        }
        producer.flush();
    }

    static String json(ConsumerRecord<?, ?> r) {
        return r.partition() + "/" + r.offset();
    }

    /** Every input record, "partition/offset", below the input's log ends. */
    private static Set<String> inputs(String bootstrap, String topic) {
        Set<String> out = new HashSet<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", bootstrap), new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            c.endOffsets(tps).forEach((tp, end) -> {
                for (long o = 0; o < end; o++) {
                    out.add(tp.partition() + "/" + o);
                }
            });
        }
        return out;
    }

    /** The output up to its last stable offset, read_committed: how often each input occurs. */
    private static Map<String, Integer> readCommitted(String bootstrap, String topic) {
        Map<String, Integer> seen = new HashMap<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of("bootstrap.servers", bootstrap, "isolation.level", "read_committed"),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp);
            while (reader.position(tp) < end) {
                for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
                    seen.merge(r.value(), 1, Integer::sum);
                }
            }
        }
        return seen;
    }
}
