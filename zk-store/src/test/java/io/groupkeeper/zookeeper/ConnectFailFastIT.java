package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import io.groupkeeper.zookeeper.internal.SessionOpener;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The mistakes people make in a store's connection settings fail fast and say what is wrong (issue 48): a port typed
 * after a slash, a host without a port, a chroot that does not exist, a session timeout too short to connect with, one
 * the server bounds, a host that does not resolve, and nothing listening — one line per attempt while waiting, not the
 * ZooKeeper client's stack trace per attempt.
 */
class ConnectFailFastIT extends ZkTestSupport {

    @Test
    void aPortTypedAfterASlashIsSaidPlainlyAtBuild() {
        String typo = "127.0.0.1/" + server.getPort();
        assertThatThrownBy(() -> ZooKeeperStore.builder().connectString(typo).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "ZooKeeperStore: connectString '" + typo + "' has '/" + server.getPort() + "' after the host: "
                                + "ZooKeeper reads what follows a '/' as a chroot path, not as a port; write '127.0.0.1:"
                                + server.getPort() + "' (host 127.0.0.1, port " + server.getPort() + ")");
    }

    @Test
    void serversWithoutAPortOrWithABadOneAreNamed() {
        assertThatThrownBy(() ->
                        ZooKeeperStore.builder().connectString("zk1:2181,zk2").build())
                .hasMessage("ZooKeeperStore: connectString 'zk1:2181,zk2': server 'zk2' has no port (write zk2:2181)");
        assertThatThrownBy(() ->
                        ZooKeeperStore.builder().connectString("zk1:21x81").build())
                .hasMessageContaining("server 'zk1:21x81' has port '21x81', not a number from 1 to 65535");
        assertThatThrownBy(() -> ZooKeeperStore.builder()
                        .connectString("zk1:2181,,zk2:2181")
                        .build())
                .hasMessageContaining("has an empty server");
        // well-formed ones pass, IPv6 in brackets and a chroot included
        ZooKeeperStore.builder()
                .connectString("zk1:2181,[::1]:2181/apps")
                .build()
                .close();
    }

    @Test
    void aChrootThatDoesNotExistIsNamedAtStart() {
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(connectString() + "/no-such-chroot")
                .build();
        long t0 = System.nanoTime();
        assertThatThrownBy(store::start)
                .isInstanceOf(StoreException.class)
                .hasMessageStartingWith("the chroot /no-such-chroot of the connect string '" + connectString()
                        + "/no-such-chroot' does not exist in ZooKeeper")
                .hasMessageContaining("namespace(\"no-such-chroot/groupkeeper\")");
        assertThat(elapsedMs(t0)).isLessThan(5_000);
    }

    @Test
    void aSessionTimeoutTooShortToConnectWithIsRefusedAtBuild() {
        assertThatThrownBy(() -> ZooKeeperStore.builder()
                        .connectString(connectString())
                        .sessionTimeout(Duration.ofMillis(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ZooKeeperStore: sessionTimeout must be at least 1 s, was 1 ms (the ZooKeeper "
                        + "client gives each connection attempt sessionTimeout / number of servers");
    }

    @Test
    void theGrantedSessionTimeoutIsReportedAndADifferentOneWarned() throws Exception {
        ListAppender<ILoggingEvent> log = capture(ZooKeeperStore.class.getName(), null);
        try {
            ZooKeeperStore store = ZooKeeperStore.builder()
                    .connectString(connectString())
                    .sessionTimeout(Duration.ofHours(1))
                    .build();
            toClose.add(store);
            store.start();
            int granted = store.curator().getZookeeperClient().getZooKeeper().getSessionTimeout();
            assertThat(granted).isLessThan(3_600_000);
            assertThat(store.sessionTimeout()).isEqualTo(Duration.ofMillis(granted));
            assertThat(lines(log, Level.WARN))
                    .containsExactly("ZooKeeper granted a session timeout of " + granted
                            + " ms, not the 3600000 ms asked for (a server bounds it to its minSessionTimeout..maxSessionTimeout, "
                            + "by default 2 to 20 times its tickTime); sessionTimeout() reports " + granted + " ms");
        } finally {
            detach(ZooKeeperStore.class.getName(), log, null);
        }
    }

    @Test
    void aHostThatDoesNotResolveIsNamed() {
        ZooKeeperStore store =
                ZooKeeperStore.builder().connectString("zk-typo.invalid:2181").build();
        assertThatThrownBy(store::start)
                .isInstanceOf(StoreException.class)
                .hasMessage("cannot connect to ZooKeeper at zk-typo.invalid:2181: no server's host resolves "
                        + "(unknown host zk-typo.invalid)");
    }

    @Test
    void nothingListeningGivesOneLinePerAttemptAndOneClearErrorWithinTheConnectionTimeout() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String cs = "127.0.0.1:" + closed;
        // The ZooKeeper client's own logger at WARN (the tests' configuration has it at ERROR): it must stay silent.
        ListAppender<ILoggingEvent> zkLog = capture("org.apache.zookeeper", Level.WARN);
        ListAppender<ILoggingEvent> log = capture(SessionOpener.class.getName(), null);
        try {
            ZooKeeperStore store = ZooKeeperStore.builder()
                    .connectString(cs)
                    .connectionTimeout(Duration.ofMillis(2_500))
                    .build();
            long t0 = System.nanoTime();
            assertThatThrownBy(store::start)
                    .isInstanceOf(StoreException.class)
                    .hasMessage(
                            "cannot connect to ZooKeeper at " + cs + " within 2500 ms: " + cs + ": Connection refused");
            assertThat(elapsedMs(t0)).isBetween(2_000L, 6_000L);
            List<String> warnings = lines(log, Level.WARN);
            assertThat(warnings)
                    .hasSizeBetween(2, 3)
                    .allMatch(l -> l.startsWith(
                            "ZooKeeper at " + cs + " cannot be reached (" + cs + ": Connection refused); attempt "));
            assertThat(log.list).allMatch(e -> e.getThrowableProxy() == null);
            assertThat(zkLog.list).as("the ZooKeeper client's lines").isEmpty();
        } finally {
            detach(SessionOpener.class.getName(), log, null);
            detach("org.apache.zookeeper", zkLog, Level.ERROR);
        }
    }

    @Test
    void theAdminsReadOnlySourceFailsFastTheSameWay() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String cs = "127.0.0.1:" + closed;
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> ZooKeeperAdmin.source(cs, Duration.ofMillis(1_500)))
                .isInstanceOf(AdminException.class)
                .hasMessage("cannot connect to ZooKeeper at " + cs + " within 1500 ms: " + cs + ": Connection refused");
        assertThat(elapsedMs(t0)).isLessThan(6_000L);
        assertThatThrownBy(() -> ZooKeeperAdmin.source("zk-typo.invalid:2181", Duration.ofSeconds(1)))
                .isInstanceOf(AdminException.class)
                .hasMessage("cannot connect to ZooKeeper at zk-typo.invalid:2181: no server's host resolves "
                        + "(unknown host zk-typo.invalid)");
        assertThatThrownBy(() -> ZooKeeperAdmin.source("127.0.0.1/" + server.getPort(), Duration.ofSeconds(1)))
                .isInstanceOf(AdminException.class)
                .hasMessageStartingWith("connectString '127.0.0.1/" + server.getPort() + "' has '/" + server.getPort()
                        + "' after the host");
        assertThatThrownBy(() -> ZooKeeperAdmin.source(connectString() + "/storm-typo", Duration.ofSeconds(5)))
                .isInstanceOf(AdminException.class)
                .hasMessage(
                        "the chroot /storm-typo of the connect string '" + connectString() + "/storm-typo' does not "
                                + "exist in ZooKeeper: create it, or leave it out of the connect string");
    }

    private static long elapsedMs(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static ListAppender<ILoggingEvent> capture(String logger, Level level) {
        Logger l = (Logger) LoggerFactory.getLogger(logger);
        if (level != null) {
            l.setLevel(level);
        }
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        l.addAppender(appender);
        return appender;
    }

    private static void detach(String logger, ListAppender<ILoggingEvent> appender, Level restore) {
        Logger l = (Logger) LoggerFactory.getLogger(logger);
        l.detachAppender(appender);
        if (restore != null) {
            l.setLevel(restore);
        }
    }

    private static List<String> lines(ListAppender<ILoggingEvent> appender, Level level) {
        synchronized (appender) {
            return appender.list.stream()
                    .filter(e -> e.getLevel() == level)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }
}
