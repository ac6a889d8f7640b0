package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.examples.FencedSink;
import io.groupkeeper.examples.StaleWriteException;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The case of the chaos run's seed 383738 on its own: a listener container in {@code KEY} ordering whose handler of
 * one record is stalled while the member is cut off from ZooKeeper past its session; the member claims the partition
 * again under a new token and processes on, the old claim's handler still running. When it ends, nothing of it
 * reaches the user: its write under the old token is refused by the fenced sink, and its completion is not taken by
 * the new claim — the new claim processes that record itself, and the offset node ends at the log end with every
 * record written under the new token. About 40 s ({@code long}).
 */
@Tag("long")
class ContainerReclaimWhileHandlerRunsIT {

    private static final String TOPIC = "reclaim";
    private static final int RECORDS = 20;
    private static final long HELD = 5;

    @Test
    void aHandlerOfAnOldClaimFinishingAfterItsMemberClaimedAgainIsFencedAndItsRecordDoneAgain() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault()) {
            servers.kafka().createTopic(TOPIC, 1);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                    Map.of("bootstrap.servers", servers.bootstrapServers(), "acks", "1", "enable.idempotence", false),
                    new StringSerializer(),
                    new StringSerializer())) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, "k", "v" + i)).get(); // one key: one lane
                }
            }
            int zkPort = Integer.parseInt(servers.zkConnectString().replaceAll(".*:", ""));
            FencedSink<Integer> sink = new FencedSink<>();
            Queue<Long> tokens = new ConcurrentLinkedQueue<>(); // as the hook saw them, claim after claim
            Queue<StaleWriteException> refused = new ConcurrentLinkedQueue<>();
            Queue<String> handled = new ConcurrentLinkedQueue<>(); // offset@token, at the end of each call
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean holding = new AtomicBoolean();
            try (ZkProxy network = new ZkProxy("m", List.of(zkPort))) {
                ZooKeeperStore store = ZooKeeperStore.builder()
                        .connectString(network.connectString())
                        .sessionTimeout(Duration.ofSeconds(4))
                        .connectionTimeout(Duration.ofSeconds(30))
                        .build();
                ZkProxy.keepBehind(store);
                GroupKeeper keeper = GroupKeeper.builder()
                        .store(store)
                        .memberIds(() -> "m")
                        .build()
                        .start();
                ListenerContainer<String, String> container = ListenerContainer.<String, String>builder(keeper)
                        .group("g")
                        .topics(TOPIC)
                        .kafkaProperty("bootstrap.servers", servers.bootstrapServers())
                        .kafkaProperty("max.poll.records", 4)
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .ordering(Ordering.KEY)
                        .parallelism(2)
                        .pollTimeout(Duration.ofMillis(100))
                        .watchdog(Duration.ofSeconds(120))
                        .consumerOptions(
                                c -> c.startPosition(StartPosition.earliest()).commitInterval(Duration.ofMillis(100)))
                        .onPartitionsAssigned((partitions, seeker) ->
                                partitions.forEach(tp -> seeker.fencingToken(tp).ifPresent(t -> {
                                    sink.open(tp.partition(), t);
                                    tokens.add(t);
                                })))
                        .recordHandler(r -> {
                            long token = HandlerContext.fencingToken().orElseThrow();
                            if (r.offset() == HELD && holding.compareAndSet(false, true)) {
                                held.countDown();
                                release.await(60, TimeUnit.SECONDS); // the stalled handler (bounded)
                            }
                            try {
                                sink.write(r.partition(), token, Long.toString(r.offset()), token + "");
                            } catch (StaleWriteException e) {
                                refused.add(e);
                            }
                            handled.add(r.offset() + "@" + token);
                        })
                        .build();
                container.start();
                try {
                    assertThat(held.await(60, TimeUnit.SECONDS))
                            .as("the handler of offset 5 holds")
                            .isTrue();
                    long first = tokens.peek();
                    network.partition(); // past the session: it expires, the member loses the partition
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> container.workers().stream()
                                    .allMatch(w -> w.owned().isEmpty()));
                    network.heal(); // a new session: the member claims the partition again
                    await().atMost(Duration.ofSeconds(60)).until(() -> tokens.size() >= 2);
                    long second = List.copyOf(tokens).get(tokens.size() - 1);
                    assertThat(second).as("the new claim's token").isGreaterThan(first);
                    // the new claim does the held record itself, and goes on, while the old handler still runs
                    await().atMost(Duration.ofSeconds(60)).until(() -> handled.contains((RECORDS - 1) + "@" + second));
                    assertThat(handled).contains(HELD + "@" + second).doesNotContain(HELD + "@" + first);

                    release.countDown(); // the old claim's handler ends: its write comes with the old token
                    await().atMost(Duration.ofSeconds(30)).until(() -> handled.contains(HELD + "@" + first));
                    assertThat(refused).singleElement().satisfies(e -> {
                        assertThat(e.staleToken()).isEqualTo(first);
                        assertThat(e.currentToken()).isEqualTo(second);
                    });
                    assertThat(sink.contents(0)).containsEntry(Long.toString(HELD), Long.toString(second));
                    // its completion is not the new claim's: the offset node reaches the log end all the same, and
                    // nothing is replayed after the old handler ended
                    try (OffsetSampler offsets = new OffsetSampler(
                                    servers.zkConnectString(), List.of("g"), TOPIC, () -> 1, new ChaosLedger(), 50)
                            .start()) {
                        await().atMost(Duration.ofSeconds(30))
                                .ignoreExceptions()
                                .until(() -> offsets.read().get("g/0") == RECORDS);
                    }
                    assertThat(handled)
                            .as("the new claim did each record once: nothing replayed after the old " + "handler ended")
                            .filteredOn(h -> h.endsWith("@" + second))
                            .doesNotHaveDuplicates();
                    System.out.printf("claims %s; handled %s; refused %s%n", tokens, handled, refused);
                } finally {
                    release.countDown();
                    container.stop(Duration.ofSeconds(10));
                    keeper.close();
                }
            }
        }
    }
}
