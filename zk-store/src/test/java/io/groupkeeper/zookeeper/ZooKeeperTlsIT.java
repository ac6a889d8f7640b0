package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.StoreException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZooKeeper client settings pass through {@link ZooKeeperStore.Builder#clientProperty}: a ZooKeeper server that
 * accepts TLS connections only, a store configured for TLS that works (a member joins and owns partitions), and one
 * without those settings that fails at start with one clear error. The certificate is made by the JDK's keytool.
 *
 * <p>ZooKeeper turns server configuration keys it does not know into {@code zookeeper.*} system properties
 * (the {@code ssl.*} keys and the connection factory among them); they are restored afterwards so the other tests of
 * this JVM keep plain servers.
 */
class ZooKeeperTlsIT {

    private static final String PASSWORD = "changeit";

    @TempDir
    Path dir;

    private Map<String, String> savedZkProperties;
    private ZooKeeperServerEmbedded server;
    private int port;
    private Path keyStore;
    private Path trustStore;

    @BeforeEach
    void startTlsServer() throws Exception {
        savedZkProperties = zookeeperSystemProperties();
        keyStore = dir.resolve("zk.p12");
        trustStore = dir.resolve("trust.p12");
        Path cert = dir.resolve("zk.crt");
        keytool(
                "-genkeypair",
                "-alias",
                "zk",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=IP:127.0.0.1,DNS:localhost",
                "-keystore",
                keyStore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        keytool(
                "-exportcert",
                "-alias",
                "zk",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                cert.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "zk",
                "-file",
                cert.toString(),
                "-keystore",
                trustStore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD);

        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Properties p = new Properties();
        p.setProperty("tickTime", "500");
        p.setProperty("dataDir", dir.resolve("data").toString());
        p.setProperty("secureClientPort", Integer.toString(port));
        p.setProperty("secureClientPortAddress", "127.0.0.1");
        p.setProperty("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        p.setProperty("ssl.keyStore.location", keyStore.toString());
        p.setProperty("ssl.keyStore.password", PASSWORD);
        p.setProperty("ssl.trustStore.location", trustStore.toString());
        p.setProperty("ssl.trustStore.password", PASSWORD);
        p.setProperty("ssl.clientAuth", "none");
        p.setProperty("admin.enableServer", "false");
        Files.createDirectories(dir.resolve("server"));
        server = ZooKeeperServerEmbedded.builder()
                .baseDir(dir.resolve("server"))
                .configuration(p)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        server.start(30_000);
    }

    @AfterEach
    void stopServerAndRestoreProperties() {
        if (server != null) {
            server.close();
        }
        zookeeperSystemProperties().keySet().forEach(System::clearProperty);
        savedZkProperties.forEach(System::setProperty);
    }

    @Test
    void aStoreConfiguredForTlsWorksAndOneWithoutFailsWithOneClearError() {
        ZooKeeperStore tls = ZooKeeperStore.builder()
                .connectString("127.0.0.1:" + port)
                .clientProperty("zookeeper.client.secure", "true")
                .clientProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty")
                .clientProperty("zookeeper.ssl.trustStore.location", trustStore.toString())
                .clientProperty("zookeeper.ssl.trustStore.password", PASSWORD)
                .build();
        try (GroupKeeper keeper = GroupKeeper.builder().store(tls).build().start()) {
            keeper.topics().ensureTopic("secure", 3);
            GroupMember member = keeper.member("tls-group").topics("secure").build();
            member.start();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> member.assignment().size() == 3);
            assertThat(member.commit(Map.of(new TopicPartition("secure", 0), 42L))
                            .status(new TopicPartition("secure", 0)))
                    .isEqualTo(io.groupkeeper.CommitResult.Status.COMMITTED);
        }

        ZooKeeperStore plain = ZooKeeperStore.builder()
                .connectString("127.0.0.1:" + port)
                .connectionTimeout(Duration.ofSeconds(2))
                .build();
        assertThatThrownBy(plain::start)
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("cannot connect to ZooKeeper at 127.0.0.1:" + port);
    }

    @Test
    void aClientPropertyMustBeAZooKeeperOne() {
        assertThatThrownBy(() -> ZooKeeperStore.builder().clientProperty("ssl.keyStore.location", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ssl.keyStore.location'")
                .hasMessageContaining("zookeeper.");
    }

    /** Runs the JDK's keytool; fails the test with its output if it fails. */
    private static void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as("keytool " + String.join(" ", args) + ": " + output)
                .isZero();
    }

    private static Map<String, String> zookeeperSystemProperties() {
        Map<String, String> props = new HashMap<>();
        for (String key : List.copyOf(System.getProperties().stringPropertyNames())) {
            if (key.startsWith("zookeeper.")) {
                props.put(key, System.getProperty(key));
            }
        }
        return props;
    }
}
