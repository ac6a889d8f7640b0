package io.groupkeeper.chaos;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.chaos.ChaosLedger.Stop;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;

/**
 * An in-JVM chaos member's way to the ensemble ({@link ChaosMember}, {@link ChaosContainerMember}): its own
 * {@link ZkProxy}, {@link ZooKeeperStore} (its own session) and {@link GroupKeeper}, and the cut-offs the proxy makes.
 * The keeper's metrics record in the ledger every time the member reports partitions lost ({@link Stop}): a member that
 * stops processing without commit — a fault, or a connection in doubt no fault was aimed at — may replay what it
 * processed since its last commit.
 */
final class ChaosConnection {

    final ZkProxy proxy;
    final ZooKeeperStore store;
    final GroupKeeper keeper;

    ChaosConnection(String name, ChaosMember.Config config, ChaosLedger ledger) throws IOException {
        this.proxy = new ZkProxy(name, config.zkPorts());
        // A member may be started while the ensemble elects a new leader (a JOIN right after a leader server was
        // killed): that took over the default 10 s once on a 2-core CI machine (seed 244416), so it may wait longer.
        this.store = ZooKeeperStore.builder()
                .connectString(proxy.connectString())
                .sessionTimeout(config.sessionTimeout())
                .connectionTimeout(Duration.ofSeconds(30))
                .build();
        ZkProxy.keepBehind(store);
        this.keeper = GroupKeeper.builder()
                .store(store)
                .memberIds(() -> name)
                .metrics(new GroupMetrics() {
                    @Override
                    public void partitionsLost(String group, String member, int count) {
                        ledger.stopped(new Stop(group, member, System.currentTimeMillis(), count));
                    }
                })
                .build();
    }

    /** Starts the keeper, then {@code user} (the consumer or container); a failed start closes what it opened. */
    void start(Runnable user) {
        try {
            keeper.start();
            user.run();
        } catch (RuntimeException e) {
            keeper.close();
            proxy.close();
            throw e;
        }
    }

    /** Cuts it off the ensemble for {@code millis}, then heals. */
    void partition(long millis) {
        proxy.partition();
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(proxy::heal);
    }

    boolean isPartitioned() {
        return proxy.isPartitioned();
    }

    /** Through the proxy: the ensemble port behind the proxy port the client is connected to. */
    Optional<Integer> zkServerPort() {
        try {
            ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
            Method m = ZooKeeper.class.getDeclaredMethod("testableRemoteSocketAddress");
            m.setAccessible(true);
            InetSocketAddress address = (InetSocketAddress) m.invoke(zk);
            return address == null ? Optional.empty() : proxy.target(address.getPort());
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** A member's failure as {@link ChaosConsumer#failure()} reports it: its name and the stack trace. */
    static Optional<String> failure(String name, Throwable t) {
        if (t == null) {
            return Optional.empty();
        }
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return Optional.of(name + ": " + w);
    }
}
