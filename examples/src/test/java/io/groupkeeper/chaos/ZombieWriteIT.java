package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.embedded.EmbeddedServers;
import io.groupkeeper.examples.FencedSink;
import io.groupkeeper.examples.FencedWorker;
import io.groupkeeper.examples.StaleWriteException;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The zombie side effect, and the fencing token that closes it (docs/reliability.md, "What is not guaranteed"): member
 * {@code a} holds a batch in user code (paused on one record) while its network to ZooKeeper is cut ({@link ZkProxy})
 * for longer than the session timeout. Its session expires, {@code b} takes the partition over and writes, and then
 * {@code a}'s user code goes on and writes the record it held — under the token of its old claim. The example's
 * {@link FencedSink} must refuse that write, naming the partition, a's token and b's, and accept every write of b:
 * the record a held ends up as b wrote it. (With a sink that ignores tokens, a's write lands over b's and this fails.)
 */
class ZombieWriteIT {

    private static final Duration SESSION = Duration.ofSeconds(5);
    private static final String TOPIC = "zombie";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @Test
    void aMemberCutOffWhileHoldingABatchHasItsLateWriteRefusedAndItsSuccessorsWritesAccepted() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault()) {
            servers.kafka().createTopic(TOPIC, 1);
            int zkPort = Integer.parseInt(servers.zkConnectString().replaceAll(".*:", ""));
            FencedSink<TopicPartition> sink = new FencedSink<>();
            try (RecordProducer producer = new RecordProducer(servers.bootstrapServers(), TOPIC, () -> 1).start(2, 50);
                    ZkProxy network = new ZkProxy("a", List.of(zkPort))) {
                FencedWorker a = FencedWorker.start(
                        "a", keeper(network.connectString(), true), "g", TOPIC, servers.bootstrapServers(), sink);
                FencedWorker b = null;
                try {
                    await().atMost(Duration.ofSeconds(60)).until(() -> a.loop().written() > 0);
                    long tokenOfA = a.tokens().of(TP).orElseThrow();

                    a.pauseOnNextRecord();
                    await().atMost(Duration.ofSeconds(30)).until(() -> a.pausedAt() >= 0); // a holds a batch
                    long writtenByA = a.loop().written();
                    long cut = System.currentTimeMillis();
                    network.partition(); // silent: a's session expires on the servers while its user code is held

                    b = FencedWorker.start(
                            "b",
                            keeper(servers.zkConnectString(), false),
                            "g",
                            TOPIC,
                            servers.bootstrapServers(),
                            sink);
                    FencedWorker successor = b;
                    String held = Long.toString(a.pausedAt());
                    // b replays from a's last commit, which is below the record a holds
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> "b".equals(sink.contents(TP).get(held)));
                    long tookOver = System.currentTimeMillis() - cut;
                    long tokenOfB = b.tokens().of(TP).orElseThrow();
                    assertThat(tokenOfB).as("the successor's token").isGreaterThan(tokenOfA);

                    a.resume(); // the zombie finishes its batch: it writes the record it held, under its old token
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> !a.loop().refusals().isEmpty());

                    StaleWriteException refused = a.loop().refusals().get(0);
                    System.out.printf(
                            "a (token %d) held offset %s when it was cut off; b (token %d) had written it "
                                    + "%d ms after the cut; a's late write: %s%n",
                            tokenOfA, held, tokenOfB, tookOver, refused.getMessage());
                    assertThat(refused.partition()).isEqualTo(TP.toString());
                    assertThat(refused.staleToken()).isEqualTo(tokenOfA);
                    assertThat(refused.currentToken()).isEqualTo(tokenOfB);
                    assertThat(refused.getMessage())
                            .contains(TP.toString(), Long.toString(tokenOfA), Long.toString(tokenOfB));
                    assertThat(a.loop().written())
                            .as("writes of a accepted after its pause")
                            .isEqualTo(writtenByA);
                    assertThat(sink.contents(TP)).containsEntry(held, "b");

                    long writtenByB = b.loop().written();
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> successor.loop().written() > writtenByB);
                    assertThat(b.loop().refusals())
                            .as("writes of the successor refused")
                            .isEmpty();
                    assertThat(sink.token(TP)).hasValue(tokenOfB);
                } finally {
                    a.stop();
                    ((ZooKeeperStore) a.keeper().store()).close(); // cut off: nothing more reaches the servers
                    a.close();
                    if (b != null) {
                        b.close();
                    }
                }
            }
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
}
