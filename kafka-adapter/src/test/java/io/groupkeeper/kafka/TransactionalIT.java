package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.ListenerContainerBuilder;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The transactional mode on a real broker: read-process-write where each input record becomes one output record
 * {@code {"topic":..,"partition":..,"offset":..}}, the output read back with {@code isolation.level=read_committed}.
 */
class TransactionalIT extends KafkaTestSupport {

    private static final Pattern OUTPUT =
            Pattern.compile("\\{\"topic\":\"([^\"]+)\",\"partition\":(\\d+),\"offset\":(\\d+)}");

    /** A read-process-write loop on its own thread: one output per input, sent in the input partition's transaction. */
    final class Worker {
        final CoordinatedConsumer<String, String> consumer;
        final String out;
        final Thread thread;
        final AtomicInteger sent = new AtomicInteger();
        final Map<Integer, AtomicInteger> sentPerPartition = new java.util.concurrent.ConcurrentHashMap<>();
        volatile boolean stop;
        volatile boolean haltAfterNextBatch;
        volatile CountDownLatch holdAfterNextBatch;
        final CountDownLatch holding = new CountDownLatch(1);
        volatile int lastBatch;
        volatile Throwable failure;

        Worker(CoordinatedConsumer<String, String> consumer, String out) {
            this.consumer = consumer;
            this.out = out;
            this.thread = new Thread(this::run, "tx-worker-" + consumer.memberId());
            consumer.start();
            thread.start();
        }

        private void run() {
            try {
                while (!stop) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    for (ConsumerRecord<String, String> r : records) {
                        consumer.send(
                                new TopicPartition(r.topic(), r.partition()),
                                new ProducerRecord<>(out, r.key(), json(r)));
                        sent.incrementAndGet();
                        sentPerPartition
                                .computeIfAbsent(r.partition(), p -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    if (records.isEmpty()) {
                        continue;
                    }
                    lastBatch = records.count();
                    if (haltAfterNextBatch) {
                        return; // a crash: the batch's outputs are in open transactions, never committed
                    }
                    CountDownLatch hold = holdAfterNextBatch;
                    if (hold != null) {
                        holdAfterNextBatch = null;
                        holding.countDown();
                        hold.await(); // a pause (GC, SIGSTOP) with the batch's transaction open
                    }
                }
                consumer.close();
            } catch (Throwable t) {
                failure = t;
            }
        }

        void stopAndJoin() throws InterruptedException {
            stop = true;
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    static String json(ConsumerRecord<?, ?> r) {
        return "{\"topic\":\"" + r.topic() + "\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset() + "}";
    }

    private CoordinatedConsumer.Builder<String, String> txConsumer(GroupKeeper keeper, String group, String in) {
        return consumer(keeper, group, in)
                .startPosition(StartPosition.earliest())
                .transactional(new StringSerializer(), new StringSerializer());
    }

    private Worker worker(GroupKeeper keeper, String group, String in, String out) {
        return worker(txConsumer(keeper, group, in), out);
    }

    private Worker worker(CoordinatedConsumer.Builder<String, String> builder, String out) {
        Worker w = new Worker(builder.build(), out);
        toClose.add(() -> {
            w.stopAndJoin();
            if (w.haltAfterNextBatch) { // crashed, its store closed: its member's goodbye only retries; don't wait
                Thread closer = new Thread(w.consumer::close, "close-crashed-" + w.consumer.memberId());
                closer.setDaemon(true);
                closer.start();
            } else {
                w.consumer.close();
            }
        });
        return w;
    }

    /**
     * Reads {@code out} with read_committed up to its last stable offset once it holds {@code expected} distinct
     * inputs; returns how often each input "partition/offset" occurs.
     */
    static Map<String, Integer> readCommitted(String out, int expected) {
        Map<String, Integer> seen = new HashMap<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers",
                        servers.bootstrapServers(),
                        "isolation.level",
                        "read_committed",
                        "auto.offset.reset",
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(out, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            await().atMost(WAIT).until(() -> {
                for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(100))) {
                    Matcher m = OUTPUT.matcher(r.value());
                    assertThat(m.matches()).as(r.value()).isTrue();
                    seen.merge(m.group(2) + "/" + m.group(3), 1, Integer::sum);
                }
                return seen.size() >= expected
                        && reader.position(tp) >= reader.endOffsets(List.of(tp)).get(tp); // (the LSO, read_committed)
            });
        }
        return seen;
    }

    /**
     * A zombie gave its partition up: its producer was fenced at a commit, or it found the partition no longer owned
     * under the claim it was assigned with before committing (either way its open transaction is aborted).
     */
    static boolean gaveUp(ListAppender<ILoggingEvent> log) {
        return warnings(log).stream().anyMatch(w -> w.contains("was fenced") || w.contains("no longer owned"));
    }

    static List<String> inputs(int partitions, int perPartition) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int o = 0; o < perPartition; o++) {
                out.add(p + "/" + o);
            }
        }
        return out;
    }

    static OptionalLong kafkaOffset(String group, String topic, int partition) throws Exception {
        TopicPartition tp = new TopicPartition(topic, partition);
        OffsetAndMetadata o = admin.listConsumerGroupOffsets(
                        Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(tp))),
                        new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata(group)
                .get(10, TimeUnit.SECONDS)
                .get(tp);
        return o == null ? OptionalLong.empty() : OptionalLong.of(o.offset());
    }

    @Test
    void everyInputIsInTheOutputExactlyOnceThroughACrashWithATransactionOpen() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("g");
        GroupKeeper crashing = newKeeper();
        Worker a = worker(crashing, group, in, out);
        Worker b = worker(newKeeper(), group, in, out);
        awaitAssigned(a.consumer, 1);
        awaitAssigned(b.consumer, 1);

        produce(in, 2, 300);
        await().atMost(WAIT).until(() -> a.sent.get() + b.sent.get() >= 300);
        // a crashes right after sending a batch's outputs (its transaction open), its session ends without a goodbye.
        a.haltAfterNextBatch = true;
        produce(in, 2, 100);
        a.thread.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(a.thread.isAlive()).isFalse();
        assertThat(a.failure).isNull();
        assertThat(a.lastBatch).isPositive();
        ((ZooKeeperStore) crashing.store()).close();

        awaitAssigned(b.consumer, 2);
        produce(in, 2, 100);
        // b repeats a's uncommitted batch, whose first outputs were aborted by b's initTransactions().
        Map<String, Integer> seen = readCommitted(out, 500);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(2, 250));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
        assertThat(b.failure).isNull();
        // The ZooKeeper offsets follow Kafka's within a commit interval (groups describe, lag, the monitor).
        for (int p = 0; p < 2; p++) {
            int partition = p;
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(kafkaOffset(group, in, partition)).hasValue(250);
                assertThat(storedOffset(group, in, partition)).hasValue(250);
            });
        }
    }

    @Test
    void aZombiesTransactionIsFencedAndNoneOfItsOutputsBecomesVisible() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("g");
        Worker a = worker(txConsumer(newKeeper(), group, in).revocationTimeout(Duration.ofSeconds(1)), out);
        awaitAssigned(a.consumer, 2);
        produce(in, 2, 100);
        await().atMost(WAIT).until(() -> a.sent.get() >= 100);

        // a pauses right after sending a batch's outputs; a second member joins, and the revocation of a partition
        // gives up waiting for a's thread: it moves to b, whose initTransactions() fences a's producer.
        CountDownLatch resume = new CountDownLatch(1);
        a.holdAfterNextBatch = resume;
        produce(in, 2, 100);
        assertThat(a.holding.await(30, TimeUnit.SECONDS)).isTrue();
        ListAppender<ILoggingEvent> log = captureWarnings();
        try {
            Worker b = worker(newKeeper(), group, in, out);
            awaitAssigned(b.consumer, 1);
            await().atMost(WAIT).until(() -> b.sent.get() > 0); // b claimed (fenced) and is processing
            resume.countDown();
            await().atMost(WAIT).until(() -> gaveUp(log));
            // the polling thread's lines name group and member through the MDC, not in the message
            assertThat(warnings(log))
                    .filteredOn(w -> w.contains("was fenced") || w.contains("no longer owned"))
                    .allSatisfy(
                            w -> assertThat(namesGroupAndMember(w, group)).as(w).isTrue())
                    .allSatisfy(w -> assertThat(w).doesNotContain(" - group "));
            await().atMost(WAIT).until(() -> a.consumer.assignment().size() == 1);

            produce(in, 2, 100);
            Map<String, Integer> seen = readCommitted(out, 300);
            assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(2, 150));
            assertThat(seen)
                    .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
            assertThat(a.failure).isNull();
            assertThat(b.failure).isNull();
        } finally {
            stopCapture(log);
        }
    }

    @Test
    void anOwnerFencedByAFormerOwnersLateClaimClaimsAgainAndGoesOn() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        Worker a = worker(newKeeper(), group, in, out);
        awaitAssigned(a.consumer, 1);
        produce(in, 1, 100);
        await().atMost(WAIT).until(() -> a.sent.get() >= 100);

        // A former owner, paused inside its claim's initTransactions(), completes it after a took the partition over:
        // a's producer is fenced although a still owns the partition by the store.
        ListAppender<ILoggingEvent> log = captureWarnings();
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> late =
                new org.apache.kafka.clients.producer.KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers",
                                servers.bootstrapServers(),
                                "transactional.id",
                                "groupkeeper/" + group + "/" + in + "/0"),
                        new StringSerializer(),
                        new StringSerializer())) {
            late.initTransactions();
            late.beginTransaction();
            late.send(new ProducerRecord<>(out, "zombie", "{\"topic\":\"" + in + "\",\"partition\":0,\"offset\":0}"));
            produce(in, 1, 100);
            await().atMost(WAIT).until(() -> warnings(log).stream().anyMatch(w -> w.contains("claimed again")));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(kafkaOffset(group, in, 0)).hasValue(200));
            // ... and a's new claim fenced the late one in turn: its transaction never commits.
            assertThatThrownBy(late::commitTransaction).isInstanceOf(org.apache.kafka.common.KafkaException.class);
        } finally {
            stopCapture(log);
        }
        produce(in, 1, 100);
        Map<String, Integer> seen = readCommitted(out, 300);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(1, 300));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
        assertThat(a.consumer.assignment()).hasSize(1);
        assertThat(a.failure).isNull();
    }

    @Test
    void anOperatorsResetOfTheZooKeeperOffsetWinsAndGoesIntoKafkaBeforeConsumptionResumes() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 100);
        // Commits its start at the claim (0), then only on commitSync() and close(): ZooKeeper held 0 at Kafka's 100.
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(a);
        a.start();
        consumeAndSend(a, out, 100);
        a.commitSync();
        a.close();
        assertThat(kafkaOffset(group, in, 0)).hasValue(100);
        assertThat(storedOffset(group, in, 0)).hasValue(100);

        produce(in, 1, 100);
        handEdit(group, in, 0, 150); // the operator skips 50 records while the group is stopped
        CoordinatedConsumer<String, String> b =
                txConsumer(newKeeper(), group, in).build();
        toClose.add(b);
        b.start();
        long first = consumeAndSend(b, out, 50);
        assertThat(first).isEqualTo(150);
        b.commitSync();
        assertThat(kafkaOffset(group, in, 0)).hasValue(200);
        assertThat(storedOffset(group, in, 0)).hasValue(200);
        b.close();

        Map<String, Integer> seen = readCommitted(out, 150);
        List<String> expected = new ArrayList<>(inputs(1, 100));
        for (int o = 150; o < 200; o++) {
            expected.add("0/" + o);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aZooKeeperOffsetLeftBehindByACrashAfterTheKafkaCommitLosesToKafka() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 60);
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(a);
        a.start();
        consumeAndSend(a, out, 60);
        // The start a resolved (earliest: 0) was stored at its claim, in Kafka and then ZooKeeper (issue 34).
        assertThat(storedOffset(group, in, 0)).hasValue(0);
        a.commitSync();
        a.close();
        assertThat(kafkaOffset(group, in, 0)).hasValue(60);
        // As if a had died between its Kafka commit (60) and the ZooKeeper write: ZooKeeper still has the start.
        handEdit(group, in, 0, 0);
        assertThat(storedOffset(group, in, 0)).hasValue(0);

        produce(in, 1, 40);
        CoordinatedConsumer<String, String> b =
                txConsumer(newKeeper(), group, in).build();
        toClose.add(b);
        b.start();
        assertThat(consumeAndSend(b, out, 40)).isEqualTo(60); // not the start position (earliest: 0)
        b.commitSync();
        assertThat(storedOffset(group, in, 0)).hasValue(100);
        b.close();
        Map<String, Integer> seen = readCommitted(out, 100);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(1, 100));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
    }

    @Test
    void sendNeedsTheModeAndAnOwnedPartitionAndConflictingPropertiesFailAtBuild() {
        String in = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        CoordinatedConsumer<String, String> plain = consumer(keeper, group, in).build();
        toClose.add(plain);
        plain.start();
        assertThatThrownBy(() -> plain.send(new TopicPartition(in, 0), new ProducerRecord<>(in, "v")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transactional mode");
        plain.close();

        CoordinatedConsumer<String, String> tx =
                txConsumer(keeper, newName("g"), in).build();
        toClose.add(tx);
        tx.start();
        assertThatThrownBy(() -> tx.send(new TopicPartition(in, 7), new ProducerRecord<>(in, "v")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not owned");

        assertThatThrownBy(() -> txConsumer(keeper, group, in)
                        .producerProperty("enable.idempotence", false)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.idempotence=false");
        assertThatThrownBy(() -> txConsumer(keeper, group, in)
                        .producerProperty("acks", "1")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acks=1");
        assertThatThrownBy(() -> txConsumer(keeper, group, in)
                        .producerProperty("transactional.id", "x")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transactional.id=x");
        assertThatThrownBy(() ->
                        txConsumer(keeper, group, in).mirrorOffsetsToKafka().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> consumer(keeper, group, in)
                        .producerProperty("linger.ms", 5)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transactional mode is not");
    }

    // ------------------------------------------------------------------ the listener container's transactional mode

    /** A transactional container whose handler sends one output per input through {@code HandlerContext.sender()}. */
    private ListenerContainerBuilder<String, String> txContainer(
            GroupKeeper keeper, String group, String in, String out) {
        return ContainerTestSupport.container(keeper, group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .recordHandler(r -> HandlerContext.<String, String>sender().send(out, r.key(), json(r)));
    }

    private <C extends ListenerContainer<?, ?>> C started(C c) {
        toClose.add(c);
        c.start();
        return c;
    }

    private static int owned(ListenerContainer<?, ?> c) {
        return c.workers().stream().mapToInt(w -> w.owned().size()).sum();
    }

    @Test
    void aTransactionalContainersOutputsAreInTheOutputExactlyOnceAcrossHandoffs() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("g");
        ListenerContainer<String, String> a =
                started(txContainer(newKeeper(), group, in, out).build());
        await().atMost(WAIT).until(() -> owned(a) == 2);
        produce(in, 2, 100);
        // b joins: a's revocation commits its open transaction, then releases; b's claim fences a's producer.
        ListenerContainer<String, String> b =
                started(txContainer(newKeeper(), group, in, out).build());
        await().atMost(WAIT).until(() -> owned(a) == 1 && owned(b) == 1);
        produce(in, 2, 100);
        a.close(); // graceful: the final transaction, then the release
        await().atMost(WAIT).until(() -> owned(b) == 2);
        produce(in, 2, 100);

        Map<String, Integer> seen = readCommitted(out, 300);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(2, 150));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
        for (int p = 0; p < 2; p++) {
            int partition = p;
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(kafkaOffset(group, in, partition)).hasValue(150));
        }
    }

    @Test
    void aFailingHandlersOutputsAreDroppedAndItsDeadLetterCommitsInTheTransaction() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String dlt = in + "-dlt";
        String group = newName("g");
        AtomicInteger poisonAttempts = new AtomicInteger();
        started(ContainerTestSupport.container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.retry(3, Backoff.fixed(Duration.ofMillis(50)))
                                .thenDeadLetter())
                        .build())
                .recordHandler(r -> {
                    HandlerContext.<String, String>sender().send(out, r.key(), json(r)); // sent, then it fails
                    if (r.offset() == 2) {
                        poisonAttempts.incrementAndGet();
                        throw new IllegalArgumentException("poison");
                    }
                })
                .build());
        produce(in, 1, 5);

        // read_committed: offsets 0, 1, 3, 4 once, nothing of the three failed attempts at 2
        Map<String, Integer> seen = readCommitted(out, 4);
        assertThat(seen)
                .containsOnlyKeys("0/0", "0/1", "0/3", "0/4")
                .allSatisfy((k, n) -> assertThat(n).isEqualTo(1));
        assertThat(poisonAttempts).hasValue(3);
        // read_uncommitted sees no trace of them either: a failed call's records were never sent
        List<ConsumerRecord<String, String>> raw = ContainerTestSupport.readAll(out, 4);
        assertThat(raw).extracting(ConsumerRecord::value).noneMatch(v -> v.contains("\"offset\":2"));
        // the dead letter commits with the position past it: read_committed sees it, and Kafka's offset is 5
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(
                Map.of("bootstrap.servers", servers.bootstrapServers(), "isolation.level", "read_committed"),
                new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> tps = List.of(new TopicPartition(dlt, 0));
            reader.assign(tps);
            reader.seekToBeginning(tps);
            List<ConsumerRecord<String, String>> dead = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                reader.poll(Duration.ofMillis(100)).forEach(dead::add);
                return !dead.isEmpty();
            });
            assertThat(dead).hasSize(1);
            assertThat(ContainerTestSupport.header(dead.get(0), "groupkeeper.dlt.original.offset"))
                    .isEqualTo("2");
            assertThat(ContainerTestSupport.header(dead.get(0), "groupkeeper.dlt.attempts"))
                    .isEqualTo("3");
        }
        // written in a transaction: the dead letter at 0, the transaction's commit marker at 1 (a plain send: end 1)
        TopicPartition dltPartition = new TopicPartition(dlt, 0);
        assertThat(admin.listOffsets(Map.of(dltPartition, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                        .partitionResult(dltPartition)
                        .get(10, TimeUnit.SECONDS)
                        .offset())
                .isEqualTo(2);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(kafkaOffset(group, in, 0)).hasValue(5));
    }

    @Test
    void aTransactionalContainerThatLostItsPartitionInAHandlerIsFencedAndCommitsNothing() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 2, 30); // before a starts: a's first fetch holds both partitions' records
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean blocked = new java.util.concurrent.atomic.AtomicBoolean();
        // a (short revocation timeout) blocks in its handler at the first offset 10, with transactions open
        ListenerContainer<String, String> a = started(ContainerTestSupport.container(newKeeper(), group, in)
                .transactional(new StringSerializer(), new StringSerializer())
                .consumerOptions(o -> o.startPosition(StartPosition.earliest())
                        .commitInterval(Duration.ofMillis(200))
                        .revocationTimeout(Duration.ofSeconds(1)))
                .recordHandler(r -> {
                    HandlerContext.<String, String>sender().send(out, r.key(), json(r));
                    if (r.offset() == 10 && blocked.compareAndSet(false, true)) {
                        holding.countDown();
                        resume.await();
                    }
                })
                .build());
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        ListAppender<ILoggingEvent> log = captureWarnings();
        try {
            // b joins; the revocation gives up waiting for a's handler after 1 s, b claims: a's producer is fenced
            ListenerContainer<String, String> b =
                    started(txContainer(newKeeper(), group, in, out).build());
            await().atMost(WAIT).until(() -> owned(b) == 1);
            resume.countDown(); // a goes on as if it still owned the moved partition: its commit is refused
            await().atMost(WAIT).until(() -> gaveUp(log));
            await().atMost(WAIT).until(() -> owned(a) == 1);
            produce(in, 2, 10);
            Map<String, Integer> seen = readCommitted(out, 40);
            assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(2, 20));
            assertThat(seen)
                    .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
        } finally {
            stopCapture(log);
        }
    }

    // ------------------------------------------------------------------ defects R1, R2 (issue 44)

    /** Produces {@code count} records to one partition. */
    private static void produceTo(String topic, int partition, int count) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i)));
        }
        for (java.util.concurrent.Future<?> f : sent) {
            f.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Waits until Kafka's offset of record is stable at {@code expected}: right after a commit the broker may still
     * answer UNSTABLE_OFFSET_COMMIT (its markers are written after commitTransaction() returns), read as no offset.
     */
    static void awaitKafkaOffset(String group, String topic, int partition, long expected) {
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(kafkaOffset(group, topic, partition))
                        .as("Kafka's offset of %s/%d in group %s", topic, partition, group)
                        .hasValue(expected));
    }

    /** Outputs of input partition {@code partition} in {@code seen} (keys "partition/offset"). */
    private static Map<String, Integer> ofPartition(Map<String, Integer> seen, int partition) {
        Map<String, Integer> out = new HashMap<>();
        seen.forEach((k, v) -> {
            if (k.startsWith(partition + "/")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /**
     * R1: a's assignment waits in its queue while its thread is busy; the revocation of one of the partitions times
     * out, the partition moves to b, which commits 100 and holds 50 outputs in an open transaction. When a's thread
     * polls, the stale assignment must not claim that partition: no initTransactions() fences b, no stale start goes
     * into Kafka, and b's held batch commits.
     */
    @Test
    void aStaleQueuedAssignmentDoesNotClaimAPartitionThatMovedOn() throws Exception {
        String in = newTopic(2);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 2, 200);
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .revocationTimeout(Duration.ofSeconds(1))
                .build();
        toClose.add(a);
        a.start();
        TopicPartition p0 = new TopicPartition(in, 0);
        TopicPartition p1 = new TopicPartition(in, 1);
        // a owns both (announced on its lane, queued for its thread); its thread does not poll: busy
        await().atMost(WAIT)
                .until(() ->
                        a.fencingToken(p0).isPresent() && a.fencingToken(p1).isPresent());

        CoordinatedConsumer<String, String> b = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(b);
        b.start();
        assertThat(consumeAndSend(b, out, 100)).isZero(); // a's revocation gave up after 1 s; b claimed
        assertThat(b.assignment()).hasSize(1);
        int moved = b.assignment().iterator().next().partition();
        b.commitSync();
        awaitKafkaOffset(group, in, moved, 100);
        produceTo(in, moved, 50);
        assertThat(consumeAndSend(b, out, 50)).isEqualTo(100); // 100..149's outputs in b's open transaction

        // a's thread comes back: its queued assignment names the moved partition
        await().atMost(WAIT).until(() -> {
            a.poll(Duration.ofMillis(100));
            return a.assignment().size() == 1;
        });
        assertThat(a.assignment()).doesNotContain(new TopicPartition(in, moved));
        assertThat(kafkaOffset(group, in, moved))
                .as("Kafka's offset of the moved partition")
                .hasValue(100);

        b.commitSync(); // b was not fenced: its held batch commits
        awaitKafkaOffset(group, in, moved, 150);
        assertThat(storedOffset(group, in, moved)).hasValue(150);
        Map<String, Integer> seen = ofPartition(readCommitted(out, 150), moved);
        List<String> expected = new ArrayList<>();
        for (int o = 0; o < 150; o++) {
            expected.add(moved + "/" + o);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
    }

    /**
     * R1, the fenced owner: a holds 100..149's outputs in an open transaction when another producer with its
     * transactional id (a former owner's late claim) fences it and commits an offset ZooKeeper does not back. a still
     * owns the partition: it claims again, ZooKeeper's 100 wins — and a goes back to 100 before it continues, rather
     * than committing its position 150 past the records whose outputs were aborted.
     */
    @Test
    void aFencedOwnerThatStillOwnsGoesBackToTheOffsetOfRecord() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 100);
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(a);
        a.start();
        consumeAndSend(a, out, 100);
        a.commitSync();
        awaitKafkaOffset(group, in, 0, 100);
        assertThat(storedOffset(group, in, 0)).hasValue(100);
        produce(in, 1, 50);
        assertThat(consumeAndSend(a, out, 50)).isEqualTo(100); // 100..149's outputs in a's open transaction

        TopicPartition tp = new TopicPartition(in, 0);
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> late =
                new org.apache.kafka.clients.producer.KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers",
                                servers.bootstrapServers(),
                                "transactional.id",
                                "groupkeeper/" + group + "/" + in + "/0"),
                        new StringSerializer(),
                        new StringSerializer())) {
            late.initTransactions(); // fences a, aborts a's open transaction
            late.beginTransaction();
            late.sendOffsetsToTransaction(
                    Map.of(tp, new OffsetAndMetadata(0, "groupkeeper:zk=-1")),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
            late.commitTransaction();
        }
        awaitKafkaOffset(group, in, 0, 0);

        a.commitSync(); // fenced, still owned: claimed again; ZooKeeper's 100 wins
        assertThat(consumeAndSend(a, out, 50)).as("where a continues").isEqualTo(100);
        a.commitSync();
        awaitKafkaOffset(group, in, 0, 150);
        Map<String, Integer> seen = readCommitted(out, 150);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(1, 150));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
    }

    /**
     * R2: a transaction is open from 100 when the operator resets the offset to 20 and the member adopts it; then the
     * transaction aborts (an output failed: what the container does). The abort goes back to the reset, 20, not to
     * where the transaction began, and the next commit does not write over the reset.
     */
    @Test
    void anAbortAfterAnAdoptedResetGoesBackToTheReset() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String group = newName("g");
        produce(in, 1, 100);
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(a);
        a.start();
        consumeAndSend(a, out, 100);
        a.commitSync();
        produce(in, 1, 50);
        assertThat(consumeAndSend(a, out, 50)).isEqualTo(100); // the transaction is open from 100

        handEdit(group, in, 0, 20); // the operator's reset
        TopicPartition tp = new TopicPartition(in, 0);
        long[] first = {-1};
        await().atMost(WAIT)
                .until(
                        () -> { // adopted: records from 20 come (no outputs sent for them)
                            ConsumerRecords<String, String> rs = a.poll(Duration.ofMillis(100));
                            if (!rs.isEmpty()) {
                                first[0] = rs.iterator().next().offset();
                            }
                            return first[0] >= 0;
                        });
        assertThat(first[0]).isEqualTo(20);
        assertThat(a.abort(tp)).as("where the aborted transaction goes back to").isEqualTo(20);
        assertThat(consumeAndSend(a, out, 130)).isEqualTo(20);
        a.commitSync();
        assertThat(storedOffset(group, in, 0)).hasValue(150);
        awaitKafkaOffset(group, in, 0, 150);
        Map<String, Integer> seen = readCommitted(out, 150);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(1, 150));
        for (int o = 0; o < 150; o++) { // 20..99 again after the reset; 100..149's first outputs were aborted
            assertThat(seen.get("0/" + o)).as("0/" + o).isEqualTo(o >= 20 && o < 100 ? 2 : 1);
        }
    }

    /**
     * R3: two deployments (ZooKeeper namespaces) with the same group name read the same topic on one Kafka cluster.
     * Their transactional ids and the Kafka groups receiving their offsets differ: b's claim neither fences a's open
     * transaction nor writes its start over a's offset of record.
     */
    @Test
    void twoNamespacesWithTheSameGroupNameOnOneKafkaClusterDoNotMeet() throws Exception {
        String in = newTopic(1);
        String out = newTopic(1);
        String outB = newTopic(1);
        String group = newName("g");
        produce(in, 1, 100);
        CoordinatedConsumer<String, String> a = txConsumer(newKeeper(), group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(a);
        a.start();
        consumeAndSend(a, out, 100);
        a.commitSync();
        produce(in, 1, 50);
        assertThat(consumeAndSend(a, out, 50)).isEqualTo(100); // a's transaction open from 100

        String namespace = newName("tenant");
        GroupKeeper other = io.groupkeeper.fixtures.Keepers.started(
                ZooKeeperStore.builder()
                        .connectString(servers.zkConnectString())
                        .namespace(namespace)
                        .sessionTimeout(SESSION_TIMEOUT)
                        .build(),
                toClose);
        CoordinatedConsumer<String, String> b = txConsumer(other, group, in)
                .commitInterval(Duration.ofMinutes(5))
                .build();
        toClose.add(b);
        b.start();
        assertThat(consumeAndSend(b, outB, 150)).isZero(); // its own group: from the start
        b.commitSync();
        awaitKafkaOffset(group, in, 0, 100);
        awaitKafkaOffset(namespace + "/" + group, in, 0, 150);

        a.commitSync(); // a was not fenced: its open transaction commits
        awaitKafkaOffset(group, in, 0, 150);
        Map<String, Integer> seen = readCommitted(out, 150);
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(inputs(1, 150));
        assertThat(seen)
                .allSatisfy((input, count) -> assertThat(count).as(input).isEqualTo(1));
    }

    /**
     * Polls on this thread until {@code count} records were sent on (the topic must hold no more than that beyond the
     * start: everything a poll returns counts as processed); returns the first record's offset.
     */
    static long consumeAndSend(CoordinatedConsumer<String, String> c, String out, int count) {
        AtomicInteger n = new AtomicInteger();
        long[] first = {-1};
        await().atMost(WAIT).until(() -> {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                if (first[0] < 0) {
                    first[0] = r.offset();
                }
                c.send(new TopicPartition(r.topic(), r.partition()), new ProducerRecord<>(out, r.key(), json(r)));
                n.incrementAndGet();
            }
            return n.get() >= count;
        });
        return first[0];
    }
}
