package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.CommitResult.Status;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

/** Security (digest ACLs, namespaces), resource hygiene and edge values, on real ZooKeeper. */
class HardeningIT extends ZkTestSupport {

    private static CuratorFramework client(String digest) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework c = b.build();
        c.start();
        c.blockUntilConnected();
        return c;
    }

    private GroupMember securedMember(String namespace, String group, boolean worldReadable) {
        ZooKeeperStore store = ZooKeeperStore.builder()
                .connectString(connectString())
                .namespace(namespace)
                .digest("app:s3cret", worldReadable)
                .build();
        GroupKeeper gk = GroupKeeper.builder().store(store).build().start();
        toClose.add(gk);
        gk.topics().ensureTopic("secure", 1);
        GroupMember m = gk.member(group).topics("secure").build();
        m.start();
        await().until(() -> m.assignment().contains(new TopicPartition("secure", 0)));
        m.commit(Map.of(new TopicPartition("secure", 0), 42L));
        return m;
    }

    @Test
    void withDigestCredentialsOnlyCredentialedClientsCanChangeOffsetsOrOwnership() throws Exception {
        String group = newGroup();
        securedMember("secured", group, true);
        String offset = "/secured/groups/" + group + "/offsets/secure/0";
        String owner = "/secured/groups/" + group + "/owners/secure/0";
        try (CuratorFramework anonymous = client(null);
                CuratorFramework intruder = client("mallory:guess")) {
            assertThat(new String(anonymous.getData().forPath(offset), StandardCharsets.UTF_8))
                    .contains("\"offset\":42");
            for (CuratorFramework c : new CuratorFramework[] {anonymous, intruder}) {
                assertThatThrownBy(() -> c.setData().forPath(offset, "0".getBytes(StandardCharsets.UTF_8)))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> c.delete().forPath(owner)).isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> c.create().forPath("/secured/groups/" + group + "/members/fake"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
        try (CuratorFramework admin = client("app:s3cret")) {
            admin.setData().forPath(offset, "7".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void readAccessCanBeDeniedToo() throws Exception {
        String group = newGroup();
        securedMember("private", group, false);
        try (CuratorFramework anonymous = client(null)) {
            assertThatThrownBy(() -> anonymous.getData().forPath("/private/groups/" + group + "/offsets/secure/0"))
                    .isInstanceOf(KeeperException.NoAuthException.class);
        }
    }

    @Test
    void namespacesIsolateTenants() {
        String group = "same-name";
        GroupKeeper a = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(connectString())
                        .namespace("tenants/a")
                        .build())
                .build()
                .start();
        GroupKeeper b = GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(connectString())
                        .namespace("tenants/b")
                        .build())
                .build()
                .start();
        toClose.add(a);
        toClose.add(b);
        a.topics().ensureTopic("t", 2);
        b.topics().ensureTopic("t", 2);
        GroupMember ma = a.member(group).topics("t").build();
        GroupMember mb = b.member(group).topics("t").build();
        ma.start();
        mb.start();
        awaitBalanced(Map.of("t", 2), ma);
        awaitBalanced(Map.of("t", 2), mb);
        TopicPartition tp = new TopicPartition("t", 0);
        ma.commit(Map.of(tp, 100L));
        mb.commit(Map.of(tp, 200L));
        assertThat(ma.committed(tp)).hasValue(100L);
        assertThat(mb.committed(tp)).hasValue(200L);
    }

    @Test
    void extremeOffsetsRoundTripAndNegativeOnesAreRefused() {
        String group = newGroup();
        topic("extreme", 1);
        GroupMember m = newKeeper().member(group).topics("extreme").build();
        m.start();
        TopicPartition tp = new TopicPartition("extreme", 0);
        await().until(() -> m.assignment().contains(tp));
        assertThat(m.commit(Map.of(tp, Long.MAX_VALUE)).status(tp)).isEqualTo(Status.COMMITTED);
        assertThat(m.committed(tp)).hasValue(Long.MAX_VALUE);
        assertThatThrownBy(() -> m.commit(Map.of(tp, Long.MIN_VALUE))).isInstanceOf(IllegalArgumentException.class);
        assertThat(m.committed(tp)).hasValue(Long.MAX_VALUE);
    }

    @Test
    void closingClientsAndMembersLeavesNoThreadsBehind() {
        // Warm up once: class loading and JVM-wide daemon threads (e.g. ZooKeeper's) are not ours to count.
        topic("cycle", 2);
        cycle(newGroup());
        Set<String> before = liveThreads();
        String group = newGroup();
        for (int i = 0; i < 40; i++) {
            cycle(group);
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Set<String> leaked = liveThreads();
            leaked.removeAll(before);
            assertThat(leaked)
                    .as("threads started by 40 open/close cycles still alive")
                    .isEmpty();
        });
    }

    @Test
    void anUnreachableZooKeeperFailsStartWithoutLeakingThreads() {
        Set<String> before = liveThreads();
        for (int i = 0; i < 3; i++) {
            GroupKeeper gk = GroupKeeper.builder()
                    .store(ZooKeeperStore.builder()
                            .connectString("127.0.0.1:1")
                            .connectionTimeout(Duration.ofMillis(300))
                            .build())
                    .build();
            assertThatThrownBy(gk::start).hasMessageContaining("cannot connect to ZooKeeper at 127.0.0.1:1");
            gk.close();
        }
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Set<String> leaked = liveThreads();
            leaked.removeAll(before);
            assertThat(leaked).isEmpty();
        });
    }

    private void cycle(String group) {
        try (GroupKeeper gk = GroupKeeper.builder().store(newStore()).build().start()) {
            GroupMember m = gk.member(group).topics("cycle").build();
            m.start();
            await().pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> m.assignment().size() == 2);
            m.close();
        }
    }

    private static Set<String> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> !t.getName().startsWith("awaitility"))
                .map(t -> t.getName() + "#" + t.getId())
                .collect(Collectors.toSet());
    }
}
