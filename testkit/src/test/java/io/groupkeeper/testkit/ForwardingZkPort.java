package io.groupkeeper.testkit;

import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkLatch;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.ZkStat;
import io.groupkeeper.zkprotocol.ZkStats;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A session port that forwards every call to another: tests override what they instrument or make unkinder. */
public abstract class ForwardingZkPort implements ZkPort {

    protected final ZkPort delegate;

    protected ForwardingZkPort(ZkPort delegate) {
        this.delegate = delegate;
    }

    @Override
    public long transactionLimit() {
        return delegate.transactionLimit();
    }

    @Override
    public String abs(String path) {
        return delegate.abs(path);
    }

    @Override
    public ZkStats stats() {
        return delegate.stats();
    }

    @Override
    public long sessionId() {
        return delegate.sessionId();
    }

    @Override
    public long handleSession() {
        return delegate.handleSession();
    }

    @Override
    public boolean isPastSession(long ephemeralOwner) {
        return delegate.isPastSession(ephemeralOwner);
    }

    @Override
    public boolean isCurrentSession(long ephemeralOwner) {
        return delegate.isCurrentSession(ephemeralOwner);
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public void requireConnected(String what) {
        delegate.requireConnected(what);
    }

    @Override
    public Optional<ZkNode> read(String path, Runnable hook) {
        return delegate.read(path, hook);
    }

    @Override
    public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
        return delegate.readIfPresentWatching(path, hook);
    }

    @Override
    public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
        return delegate.readAsync(path, hook);
    }

    @Override
    public Optional<ZkStat> exists(String path, Runnable hook) {
        return delegate.exists(path, hook);
    }

    @Override
    public List<String> children(String path, Runnable hook) {
        return delegate.children(path, hook);
    }

    @Override
    public CompletableFuture<List<String>> childrenAsync(String path) {
        return delegate.childrenAsync(path);
    }

    @Override
    public void sync(String path) {
        delegate.sync(path);
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        delegate.ensurePath(path, data);
    }

    @Override
    public ZkResult write(ZkOp op) throws ZkFailure {
        return delegate.write(op);
    }

    @Override
    public ZkResult createWithParents(String path, byte[] data) throws ZkFailure {
        return delegate.createWithParents(path, data);
    }

    @Override
    public java.util.Map<String, Optional<ZkNode>> readAll(List<String> paths) throws ZkFailure {
        return delegate.readAll(paths);
    }

    @Override
    public java.util.Map<String, Optional<List<String>>> childrenAll(List<String> paths) throws ZkFailure {
        return delegate.childrenAll(paths);
    }

    @Override
    public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
        return delegate.multi(ops);
    }

    @Override
    public List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure {
        return delegate.multiInSession(session, ops);
    }

    @Override
    public CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
        return delegate.multiInSessionAsync(session, ops);
    }

    @Override
    public long sizeOf(ZkOp op) {
        return delegate.sizeOf(op);
    }

    @Override
    public void addPersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) throws ZkFailure {
        delegate.addPersistentWatch(path, recursive, watcher);
    }

    @Override
    public void removePersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) {
        delegate.removePersistentWatch(path, recursive, watcher);
    }

    @Override
    public ZkLatch latch(String path, String participantId, Runnable isLeader, Runnable notLeader) {
        return delegate.latch(path, participantId, isLeader, notLeader);
    }
}
