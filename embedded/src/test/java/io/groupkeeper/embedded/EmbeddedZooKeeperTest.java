package io.groupkeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedZooKeeperTest {

    @Test
    void startsServesANodeAndFreesPortAndTempDirOnClose() throws Exception {
        long t0 = System.nanoTime();
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build().start();
        long startMillis = TestSupport.millisSince(t0);
        System.out.println("[timing] EmbeddedZooKeeper start: " + startMillis + " ms");
        int port;
        Path dir;
        try {
            port = zk.port();
            dir = zk.dataDir();
            assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + port);
            assertThat(zk.isRunning()).isTrue();
            assertThat(Ports.isFree(port)).isFalse();
            assertThat(TestSupport.createAndRead(zk.connectString(), "/gk-embedded", "hello"))
                    .isEqualTo("hello");
        } finally {
            long c0 = System.nanoTime();
            zk.close();
            System.out.println("[timing] EmbeddedZooKeeper close: " + TestSupport.millisSince(c0) + " ms");
        }
        assertThat(zk.isRunning()).isFalse();
        assertThat(dir).doesNotExist();
        TestSupport.awaitPortFree(port);
        zk.close(); // idempotent

        // The same port can be used again at once.
        try (EmbeddedZooKeeper again =
                EmbeddedZooKeeper.builder().port(port).build().start()) {
            assertThat(again.port()).isEqualTo(port);
            assertThat(TestSupport.read(again.connectString(), "/gk-embedded")).isNull();
        }
    }

    @Test
    void keepsAGivenDataDirAcrossRestarts(@TempDir Path dir) throws Exception {
        try (EmbeddedZooKeeper zk =
                EmbeddedZooKeeper.builder().dataDir(dir).build().start()) {
            TestSupport.createAndRead(zk.connectString(), "/kept", "v1");
        }
        assertThat(dir).isDirectory();
        try (EmbeddedZooKeeper zk =
                EmbeddedZooKeeper.builder().dataDir(dir).build().start()) {
            assertThat(TestSupport.read(zk.connectString(), "/kept")).isEqualTo("v1");
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("data");
        }
    }

    @Test
    void failsFastWhenAGivenPortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            long t0 = System.nanoTime();
            EmbeddedZooKeeper zk =
                    EmbeddedZooKeeper.builder().port(taken.getLocalPort()).build();
            assertThatThrownBy(zk::start)
                    .isInstanceOf(EmbeddedServerException.class)
                    .hasMessageContaining(Integer.toString(taken.getLocalPort()))
                    .hasMessageContaining("in use");
            assertThat(TestSupport.millisSince(t0)).isLessThan(5_000);
            assertThat(zk.isRunning()).isFalse();
        }
    }

    @Test
    void extraPropertiesArePassedThrough() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder()
                .property("maxSessionTimeout", "5000")
                .build()
                .start()) {
            assertThat(TestSupport.createAndRead(zk.connectString(), "/p", "x")).isEqualTo("x");
        }
    }

    @Test
    void rejectsBadOptionsNamingThem(@TempDir Path tmp) throws Exception {
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().port(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port")
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().port(65_536))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().startTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("startTimeout");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().property("clientPort", "2181"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientPort");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().property(" ", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("property key");
        Path file = Files.createFile(tmp.resolve("not-a-dir"));
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().dataDir(file).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataDir");
    }

    @Test
    void isStartedOnceAndAccessorsNeedARunningServer() {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build();
        assertThatThrownBy(zk::connectString).isInstanceOf(IllegalStateException.class);
        zk.start();
        try {
            assertThatThrownBy(zk::start).isInstanceOf(IllegalStateException.class);
        } finally {
            zk.close();
        }
        assertThatThrownBy(zk::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(zk::connectString).isInstanceOf(IllegalStateException.class);
    }
}
