package io.groupkeeper.zookeeper;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The store's and the admin's builders reject a bad connection setting in the setter that takes it, naming it (as core's
 * and the adapter's builders do), and both with the same words: the admin's own store is built by the store's builder.
 */
class StoreBuildersRejectAtOnceTest {

    @Test
    void eachStoreSetterRejectsItsBadValueAtOnce() {
        ZooKeeperStore.Builder b = ZooKeeperStore.builder();
        assertThatThrownBy(() -> b.connectString(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: connectString is required (e.g. 127.0.0.1:2181)");
        assertThatThrownBy(() -> b.connectString("zk1:2181,zk2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: connectString 'zk1:2181,zk2': server 'zk2' has no port (write zk2:2181)");
        assertThatThrownBy(() -> b.namespace("/abs"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: namespace must be a relative path like 'groupkeeper' or 'tenants/a', was "
                        + "'/abs'");
        assertThatThrownBy(() -> b.sessionTimeout(Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ZooKeeperStore: sessionTimeout must be at least 1 s, was 500 ms");
        assertThatThrownBy(() -> b.connectionTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: connectionTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> b.digest("no-colon", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: digest must be user:password");
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: connectString is required (e.g. 127.0.0.1:2181)");
    }

    @Test
    void theAdminsSettersRejectWithTheStoresWords() {
        ZooKeeperAdmin.Builder b = ZooKeeperAdmin.builder();
        assertThatThrownBy(() -> b.namespace("a//b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: namespace must be a relative path like 'groupkeeper' or 'tenants/a', was "
                        + "'a//b'");
        assertThatThrownBy(() -> b.digest(":pw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperStore: digest must be user:password");
        assertThatThrownBy(() -> b.connectString("127.0.0.1/2181"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ZooKeeperStore: connectString '127.0.0.1/2181' has '/2181' after the host");
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ZooKeeperAdmin: connectString (or store) is required");
    }
}
