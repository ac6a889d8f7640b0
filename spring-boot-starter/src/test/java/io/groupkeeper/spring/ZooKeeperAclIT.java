package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** {@code groupkeeper.zookeeper.digest.*}: the nodes the application creates carry its digest ACL, and only it. */
class ZooKeeperAclIT {

    static final String CREDENTIALS = "billing-app:s3cret";

    static CuratorFramework client(String digest) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(SharedServers.get().zkConnectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework c = b.build();
        c.start();
        c.blockUntilConnected();
        return c;
    }

    /** Every node under {@code path} (included) that still exists when visited. */
    static List<String> tree(CuratorFramework c, String path) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(path);
        List<String> children;
        try {
            children = c.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            return List.of();
        }
        for (String child : children) {
            out.addAll(tree(c, path + "/" + child));
        }
        return out;
    }

    @Test
    void digestCredentialsFromThePropertiesGoOnEveryNodeTheApplicationCreates() throws Exception {
        String topic = SharedServers.topic(2);
        String group = SharedServers.name("g");
        String namespace = SharedServers.name("acl");
        String groupPath = "/" + namespace + "/groups/" + group;
        try (ConfigurableApplicationContext app = SharedServers.startApp(
                        topic,
                        group,
                        Map.of(
                                "groupkeeper.zookeeper.namespace", namespace,
                                "groupkeeper.zookeeper.digest.username", "billing-app",
                                "groupkeeper.zookeeper.digest.password", "s3cret",
                                "groupkeeper.zookeeper.digest.world-readable", "false"));
                CuratorFramework owner = client(CREDENTIALS);
                CuratorFramework anonymous = client(null);
                CuratorFramework intruder = client("mallory:guess")) {
            GroupKeeperContainers containers = app.getBean(GroupKeeperContainers.class);
            await().atMost(WAIT)
                    .until(() -> containers
                                    .container("billing")
                                    .workers()
                                    .get(0)
                                    .owned()
                                    .size()
                            == 2);
            String ownerNode = groupPath + "/owners/" + topic + "/0";
            String member = containers.container("billing").workers().get(0).member();

            List<String> nodes = tree(owner, groupPath);
            assertThat(nodes).contains(groupPath, groupPath + "/members/" + member, ownerNode);
            List<ACL> expected = List.of(new ACL(
                    ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest(CREDENTIALS))));
            for (String node : nodes) {
                try {
                    assertThat(owner.getACL().forPath(node)).as(node).isEqualTo(expected);
                } catch (KeeperException.NoNodeException gone) {
                    // an ephemeral node that went away meanwhile (an election node)
                }
            }

            for (CuratorFramework c : new CuratorFramework[] {anonymous, intruder}) {
                assertThatThrownBy(() -> c.getData().forPath(ownerNode))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> c.setData().forPath(ownerNode, new byte[0]))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> c.delete().forPath(ownerNode))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> c.create().forPath(groupPath + "/members/intruder"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
            assertThat(containers.container("billing").workers().get(0).owned()).hasSize(2);
            byte[] body = owner.getData().forPath(groupPath);
            owner.setData().forPath(groupPath, body); // the application's credentials do write
        }
    }
}
