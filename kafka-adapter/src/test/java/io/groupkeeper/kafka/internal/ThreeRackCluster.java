package io.groupkeeper.kafka.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Three in-process Kafka brokers in one KRaft cluster, one per rack ({@code broker.rack} az-a, az-b, az-c): node 1 is
 * broker and controller, nodes 2 and 3 brokers only. For the rack tests (the embedded module runs one node; benchmarks has its twin, ThreeRackKafka).
 */
final class ThreeRackCluster implements AutoCloseable {

    static final String[] RACKS = {"az-a", "az-b", "az-c"};

    private final List<KafkaRaftServer> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Path baseDir;

    ThreeRackCluster() throws Exception {
        baseDir = Files.createTempDirectory("groupkeeper-3rack-");
        String clusterId = Uuid.randomUuid().toString();
        int controllerPort = freePort();
        for (int node = 1; node <= 3; node++) {
            int port = freePort();
            Path logDir = baseDir.resolve("node-" + node);
            Properties p = new Properties();
            p.setProperty("process.roles", node == 1 ? "broker,controller" : "broker");
            p.setProperty("node.id", Integer.toString(node));
            p.setProperty("broker.rack", RACKS[node - 1]);
            p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
            p.setProperty("controller.listener.names", "CONTROLLER");
            p.setProperty("inter.broker.listener.name", "PLAINTEXT");
            p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.setProperty("listeners", node == 1
                    ? "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort
                    : "PLAINTEXT://127.0.0.1:" + port);
            p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.setProperty("log.dirs", logDir.toString());
            p.setProperty("metadata.log.dir", logDir.toString());
            p.setProperty("offsets.topic.replication.factor", "1");
            p.setProperty("transaction.state.log.replication.factor", "1");
            p.setProperty("transaction.state.log.min.isr", "1");
            p.setProperty("share.coordinator.state.topic.replication.factor", "1");
            p.setProperty("share.coordinator.state.topic.min.isr", "1");
            p.setProperty("offsets.topic.num.partitions", "3");
            p.setProperty("group.initial.rebalance.delay.ms", "0");
            p.setProperty("auto.create.topics.enable", "false");
            p.setProperty("num.network.threads", "2");
            p.setProperty("num.io.threads", "2");
            p.setProperty("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
            KafkaConfig config = KafkaConfig.fromProps(p, false);
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setNodeId(node)
                    .setClusterId(clusterId)
                    .setControllerListenerName("CONTROLLER")
                    .setMetadataLogDirectory(config.metadataLogDir())
                    .setDirectories(List.of(logDir.toString()))
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setHasDynamicQuorum(false)
                    .setWriteBootstrapSnapshot(node == 1)
                    .run();
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            servers.add(server);
            ports.add(port);
        }
        // The controller first; the brokers then register with it. startup() returns once each is up.
        for (KafkaRaftServer s : servers) {
            s.startup();
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(
                    () -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() == 3);
        }
    }

    String bootstrapServers() {
        StringBuilder b = new StringBuilder();
        for (int port : ports) {
            b.append(b.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        return b.toString();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        for (int i = servers.size() - 1; i >= 0; i--) {
            servers.get(i).shutdown();
            servers.get(i).awaitShutdown();
        }
        try (Stream<Path> files = Files.walk(baseDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
