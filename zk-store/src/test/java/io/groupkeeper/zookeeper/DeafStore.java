package io.groupkeeper.zookeeper;

import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.GroupStore;
import io.groupkeeper.spi.TopicRegistry;

/**
 * A store that never tells its members about connection trouble: the member behaves like a zombie that missed a
 * disconnect (a long GC pause, a frozen VM). Used to prove that fencing in the store, not the member's good
 * behaviour, keeps a stale owner from writing.
 */
final class DeafStore implements CoordinationStore {

    private final ZooKeeperStore delegate;

    DeafStore(ZooKeeperStore delegate) {
        this.delegate = delegate;
    }

    ZooKeeperStore delegate() {
        return delegate;
    }

    @Override
    public void start() {
        delegate.start();
    }

    @Override
    public GroupStore group(String groupId) {
        return delegate.group(groupId);
    }

    @Override
    public TopicRegistry topics() {
        return delegate.topics();
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        // deaf on purpose
    }

    @Override
    public void removeConnectionListener(ConnectionListener listener) {
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public String describe() {
        return "deaf " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
