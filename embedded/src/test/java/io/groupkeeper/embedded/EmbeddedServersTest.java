package io.groupkeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

class EmbeddedServersTest {

    @Test
    void startsAndClosesTwiceInOneJvmWithoutLeaks() throws Exception {
        Set<Thread> before = TestSupport.liveThreads();
        for (int round = 1; round <= 2; round++) {
            long t0 = System.nanoTime();
            EmbeddedServers servers = EmbeddedServers.builder().build().start();
            long startMillis = TestSupport.millisSince(t0);
            int zkPort = servers.zooKeeper().port();
            int kafkaPort = servers.kafka().port();
            int controllerPort = servers.kafka().controllerPort();
            try {
                assertThat(servers.zkConnectString()).isEqualTo("127.0.0.1:" + zkPort);
                assertThat(servers.bootstrapServers()).isEqualTo("127.0.0.1:" + kafkaPort);
                assertThat(TestSupport.createAndRead(servers.zkConnectString(), "/round", "r" + round))
                        .isEqualTo("r" + round);
                servers.kafka().createTopic("round-" + round, 2);
                try (Admin admin = Admin.create(servers.kafka().clientProperties())) {
                    assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS))
                            .contains("round-" + round);
                }
            } finally {
                long c0 = System.nanoTime();
                servers.close();
                System.out.printf(
                        "[timing] EmbeddedServers round %d: start %d ms (zk+kafka), close %d ms%n",
                        round, startMillis, TestSupport.millisSince(c0));
            }
            servers.close(); // idempotent
            assertThat(servers.zooKeeper().isRunning()).isFalse();
            assertThat(servers.kafka().isRunning()).isFalse();
            for (int port : List.of(zkPort, kafkaPort, controllerPort)) {
                TestSupport.awaitPortFree(port);
            }
            assertNoServerThreadsLeft(before);
        }
    }

    @Test
    void stopsZooKeeperWhenKafkaFailsToStart() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            EmbeddedServers servers = EmbeddedServers.builder()
                    .kafka(EmbeddedKafka.builder().port(taken.getLocalPort()).startTimeout(Duration.ofSeconds(20)))
                    .build();
            assertThatThrownBy(servers::start)
                    .isInstanceOf(EmbeddedServerException.class)
                    .hasMessageContaining("Kafka did not start");
            assertThat(servers.zooKeeper().isRunning()).isFalse();
            assertThat(servers.kafka().isRunning()).isFalse();
            assertThatThrownBy(servers::zkConnectString).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(servers::start).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void builderRejectsBadOptionsNamingThem() {
        assertThatThrownBy(() -> EmbeddedServers.builder().zkPort(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zkPort");
        assertThatThrownBy(() -> EmbeddedServers.builder().kafkaPort(100_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kafkaPort");
        assertThatThrownBy(() -> EmbeddedServers.builder().brokerProperty("node.id", "7"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node.id");
    }

    /** Threads started since {@code before} must all be gone, except JVM-wide daemons the libraries keep. */
    private static void assertNoServerThreadsLeft(Set<Thread> before) {
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Set<Thread> now = new HashSet<>(TestSupport.liveThreads());
            now.removeAll(before);
            Set<String> leaked = now.stream()
                    .filter(t -> !isKnownGlobalDaemon(t))
                    .map(t -> t.getName() + (t.isDaemon() ? " (daemon)" : ""))
                    .collect(Collectors.toSet());
            assertThat(leaked).as("threads left after close").isEmpty();
        });
    }

    private static boolean isKnownGlobalDaemon(Thread t) {
        String name = t.getName();
        if (name.startsWith("awaitility")) {
            return true; // the test's own poller
        }
        return t.isDaemon()
                && (name.startsWith("metrics-meter-tick-thread") // yammer default registry
                        || name.startsWith("process reaper")
                        || name.startsWith("Attach Listener")
                        || name.startsWith("Common-Cleaner")
                        || name.startsWith("ForkJoinPool"));
    }
}
