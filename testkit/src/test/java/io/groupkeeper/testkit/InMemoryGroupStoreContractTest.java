package io.groupkeeper.testkit;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CoordinationStore;
import java.time.Duration;
import java.util.Set;

/** The store contract on the in-memory store: one {@link InMemoryZooKeeper} per test. */
class InMemoryGroupStoreContractTest extends GroupStoreContract {

    private final InMemoryZooKeeper zooKeeper = new InMemoryZooKeeper();

    @Override
    protected CoordinationStore newStore() {
        InMemoryCoordinationStore s = InMemoryCoordinationStore.builder(zooKeeper)
                .sessionTimeout(Duration.ofSeconds(4))
                .build();
        s.start();
        return s;
    }

    @Override
    protected void expireSession(CoordinationStore store) {
        ((InMemoryCoordinationStore) store).expireSession();
    }

    @Override
    protected void dropConnection(CoordinationStore store) {
        ((InMemoryCoordinationStore) store).disconnect();
    }

    @Override
    protected void restoreConnection(CoordinationStore store) {
        ((InMemoryCoordinationStore) store).reconnect();
    }

    @Override
    protected void setOffsetByHand(String path, long offset) {
        zooKeeper.setOffset(path, offset);
    }

    @Override
    protected void writeByHand(String path, String text) {
        zooKeeper.setData(path, text);
    }

    @Override
    protected byte[] readByHand(String path) {
        return zooKeeper.data(path).orElseThrow(() -> new AssertionError("no node " + path));
    }

    @Override
    protected void writeGarbageByHand(String path) {
        zooKeeper.writeGarbage(path, "{offset: oops");
    }

    @Override
    protected void deleteByHand(String path) {
        zooKeeper.delete(path);
    }

    @Override
    protected void writeTargetByHand(String path, long generation, Set<TopicPartition> partitions) {
        zooKeeper.setTarget(path, generation, partitions);
    }
}
