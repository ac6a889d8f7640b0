package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;

/**
 * The zombie side effect and its cure, end to end on in-process ZooKeeper and Kafka: member {@code a} of a group is
 * stuck in user code with a batch in hand and, at that moment, loses its network to ZooKeeper ({@link ZkProxy}) for
 * longer than its session. Its session expires, its partition moves to {@code b}, and when {@code a}'s user code goes
 * on it writes the record it held to the downstream store — under its old claim's fencing token, which the
 * {@link FencedSink} refuses, while every write of {@code b} stands. The commit fence alone would have kept only
 * {@code a}'s offsets out, not that write. Exit 0 when the sink refused the zombie and kept the successor's writes.
 */
@Command(
        name = "zombie",
        mixinStandardHelpOptions = true,
        description = {
            "A cut-off member's late write is refused by a sink that checks fencing tokens.",
            "Runs on ZooKeeper and Kafka started in this process (about 20 s). Exit 0 if the sink held."
        })
final class ZombieCommand implements Callable<Integer> {

    private static final Duration SESSION = Duration.ofSeconds(6);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault();
                ZkProxy network = new ZkProxy(
                        "a",
                        Arrays.stream(servers.zkConnectString().split(","))
                                .map(hp -> Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1)))
                                .toList())) {
            out.println("Started ZooKeeper " + servers.zkConnectString() + " and Kafka " + servers.bootstrapServers()
                    + " in this process.");
            String topic = "payments";
            TopicPartition tp = new TopicPartition(topic, 0);
            servers.kafka().createTopic(topic, 1);
            out.println("Topic payments, 10 records; group ledger-writers writes each one to a downstream store that"
                    + " checks fencing tokens.");
            FencedSink<TopicPartition> sink = new FencedSink<>();
            return play(servers, network, tp, sink) ? 0 : 1;
        }
    }

    private boolean play(EmbeddedServers servers, ZkProxy network, TopicPartition tp, FencedSink<TopicPartition> sink)
            throws Exception {
        FencedWorker a = FencedWorker.start(
                "a",
                keeper(network.connectString(), true),
                "ledger-writers",
                tp.topic(),
                servers.bootstrapServers(),
                sink);
        FencedWorker b = null;
        try {
            a.pauseAt(5);
            produce(servers.bootstrapServers(), tp.topic(), 10);
            await(() -> a.pausedAt() >= 0, "a to reach offset 5");
            long tokenOfA = a.tokens().of(tp).orElseThrow();
            out.printf(
                    "a owns %s under fencing token %d, wrote offsets %s and is stuck in user code on offset 5.%n",
                    tp, tokenOfA, a.processed());

            long cut = System.currentTimeMillis();
            network.partition();
            out.printf(
                    "At that moment a's network to ZooKeeper goes, for longer than its %d s session.%n",
                    SESSION.toSeconds());
            b = FencedWorker.start(
                    "b",
                    keeper(servers.zkConnectString(), false),
                    "ledger-writers",
                    tp.topic(),
                    servers.bootstrapServers(),
                    sink);
            FencedWorker successor = b;
            await(() -> "b".equals(sink.contents(tp).get("5")), "b to take over and write offset 5");
            long tokenOfB = b.tokens().of(tp).orElseThrow();
            out.printf(
                    "a's session expired; b took %s over %.1f s after the cut under token %d and wrote offsets"
                            + " %s.%n",
                    tp, (System.currentTimeMillis() - cut) / 1000.0, tokenOfB, b.processed());

            a.resume();
            await(() -> !a.loop().refusals().isEmpty(), "the sink to answer a's late write");
            StaleWriteException refused = a.loop().refusals().get(0);
            out.println(
                    "a's user code goes on and writes offset 5 under its old token. The sink: " + refused.getMessage());

            boolean held = tokenOfB > tokenOfA
                    && refused.staleToken() == tokenOfA
                    && refused.currentToken() == tokenOfB
                    && "b".equals(sink.contents(tp).get("5"))
                    && successor.loop().refusals().isEmpty();
            out.println(
                    held
                            ? "The zombie's write was refused; every write of b stands."
                            : "The sink did NOT hold: " + sink.contents(tp));
            return held;
        } finally {
            network.heal();
            if (b != null) {
                b.close();
            }
            a.close();
        }
    }

    private static GroupKeeper keeper(String connect, boolean behindProxy) {
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(connect)
                .sessionTimeout(SESSION)
                .build();
        if (behindProxy) {
            ZkProxy.keepBehind(store);
        }
        return GroupKeeper.builder().store(store).build().start();
    }

    private static void produce(String bootstrap, String topic, int n) throws Exception {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "acks",
                        "1",
                        "enable.idempotence",
                        false,
                        "max.block.ms",
                        30_000),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                p.send(new ProducerRecord<>(topic, 0, null, "payment-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up waiting " + WAIT.toSeconds() + " s for " + what);
            }
            Thread.sleep(20); // a demo's poll of its own state, not a test
        }
    }
}
