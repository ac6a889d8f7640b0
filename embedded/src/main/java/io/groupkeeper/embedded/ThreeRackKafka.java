package io.groupkeeper.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Three in-process Kafka brokers in one KRaft cluster, one per rack ({@code broker.rack} {@link #RACKS}: az-a, az-b,
 * az-c): node 1 is broker and controller, nodes 2 and 3 brokers only, all on free loopback ports, storage in one
 * temporary directory deleted by {@link #close()}. For rack-aware tests and the rack measurement; {@link EmbeddedKafka}
 * is the single node everything else uses (fixed node id, a quorum of itself), so this cluster has no builder and no
 * options: {@link EmbeddedKafka}'s defaults (replication factor 1 for the internal topics and new topics, no automatic
 * topic creation, small buffers) with 2 I/O threads per node.
 *
 * <pre>{@code
 * try (ThreeRackKafka kafka = ThreeRackKafka.start()) {
 *     admin.createTopics(List.of(new NewTopic("t", Map.of(0, List.of(1), 1, List.of(3)))));   // az-a, az-c
 * }
 * }</pre>
 */
public final class ThreeRackKafka implements AutoCloseable {

    /** The racks of nodes 1, 2 and 3, in that order. */
    public static final List<String> RACKS = List.of("az-a", "az-b", "az-c");

    private static final long REGISTER_TIMEOUT_SECONDS = 60;

    private final List<KafkaRaftServer> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Path baseDir;

    private ThreeRackKafka() {
        ServerLogs.quiet();
        baseDir = Dirs.createTemp("groupkeeper-3rack-");
    }

    /** Formats and starts the three nodes; returns once all three brokers are registered with the controller. */
    public static ThreeRackKafka start() {
        ThreeRackKafka cluster = new ThreeRackKafka();
        try {
            cluster.startNodes();
            return cluster;
        } catch (Exception e) {
            cluster.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new EmbeddedServerException("three-rack Kafka did not start: " + e, e);
        }
    }

    private void startNodes() throws Exception {
        String clusterId = Uuid.randomUuid().toString();
        int controllerPort = Ports.freePort();
        for (int node = 1; node <= RACKS.size(); node++) {
            int port = Ports.freePort();
            Path logDir = baseDir.resolve("node-" + node);
            KafkaConfig config = KafkaConfig.fromProps(nodeConfig(node, port, controllerPort, logDir), false);
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
            servers.add(new KafkaRaftServer(config, Time.SYSTEM));
            ports.add(port);
        }
        // The controller first; the brokers then register with it. startup() returns once each is up.
        for (KafkaRaftServer s : servers) {
            s.startup();
        }
        awaitBrokersRegistered();
    }

    private static Properties nodeConfig(int node, int port, int controllerPort, Path logDir) {
        Properties p = EmbeddedKafka.singleReplicaDefaults();
        p.setProperty("process.roles", node == 1 ? "broker,controller" : "broker");
        p.setProperty("node.id", Integer.toString(node));
        p.setProperty("broker.rack", RACKS.get(node - 1));
        p.setProperty("controller.quorum.voters", "1@" + Ports.LOOPBACK + ":" + controllerPort);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty(
                "listeners",
                node == 1
                        ? "PLAINTEXT://" + Ports.LOOPBACK + ":" + port + ",CONTROLLER://" + Ports.LOOPBACK + ":"
                                + controllerPort
                        : "PLAINTEXT://" + Ports.LOOPBACK + ":" + port);
        p.setProperty("advertised.listeners", "PLAINTEXT://" + Ports.LOOPBACK + ":" + port);
        p.setProperty("log.dirs", logDir.toString());
        p.setProperty("metadata.log.dir", logDir.toString());
        p.setProperty("num.io.threads", "2");
        return p;
    }

    /** Polls the cluster's metadata (an outside state, at a fixed pace) until it lists the three brokers. */
    private void awaitBrokersRegistered() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REGISTER_TIMEOUT_SECONDS);
            while (admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() < RACKS.size()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "three brokers did not register within " + REGISTER_TIMEOUT_SECONDS + " s");
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /** The three brokers' PLAINTEXT addresses, {@code "127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>"}. */
    public String bootstrapServers() {
        StringBuilder b = new StringBuilder();
        for (int port : ports) {
            b.append(b.length() == 0 ? "" : ",")
                    .append(Ports.LOOPBACK)
                    .append(':')
                    .append(port);
        }
        return b.toString();
    }

    /** Stops the brokers, then the controller, and deletes their storage. */
    @Override
    public void close() {
        for (int i = servers.size() - 1; i >= 0; i--) {
            servers.get(i).shutdown();
            servers.get(i).awaitShutdown();
        }
        servers.clear();
        try {
            Dirs.deleteRecursively(baseDir);
        } catch (IOException e) {
            throw new EmbeddedServerException("could not delete " + baseDir + ": " + e, e);
        }
    }
}
