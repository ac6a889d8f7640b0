package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.ForwardingZkPort;
import io.groupkeeper.testkit.sim.RoundTrips.Step;
import io.groupkeeper.zkprotocol.ZkEvent;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkResult;
import io.groupkeeper.zkprotocol.ZkStat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A store's session port that moves the {@link RoundTrips} clock: each request is one round trip (a write one of the
 * writes), each watch notification arrives at the step of the write that fired it, each background answer at one
 * step past its sending ({@link DepthFuture}). What every write reached is kept in a {@link Ledger} shared by all the
 * stores of a world, so that the watches of one store hear the writes of another.
 */
final class CountingPort extends ForwardingZkPort {

    /** One read: the step it was sent at and the step its answer arrived at. */
    record Read(Step sent, Step answered) {}

    /**
     * The steps at which paths were last written, and at which nodes were created, across one world; and every read,
     * by the name of the port that sent it and the path.
     */
    static final class Ledger {
        final Map<String, Step> written = new ConcurrentHashMap<>();
        final Map<String, Step> created = new ConcurrentHashMap<>();
        final Map<String, List<Read>> reads = new ConcurrentHashMap<>();

        List<Read> readsOf(String reader, String path) {
            return reads.getOrDefault(reader + " " + path, List.of());
        }

        void read(String reader, String path, Step sent) {
            reads.computeIfAbsent(reader + " " + path, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(new Read(sent, sent.after(false)));
        }

        Step writtenAt(String path) {
            return written.getOrDefault(path, RoundTrips.now());
        }

        void wrote(List<ZkOp> ops, Step at) {
            for (ZkOp op : ops) {
                if (op instanceof ZkOp.Check) {
                    continue;
                }
                written.put(op.path(), at);
                int slash = op.path().lastIndexOf('/');
                if (slash > 0) {
                    written.put(op.path().substring(0, slash), at); // the parent's children changed
                }
                if (op instanceof ZkOp.Create) {
                    created.put(op.path(), at);
                }
            }
        }
    }

    private final Ledger ledger;
    private final String name;
    private final Map<Consumer<ZkEvent>, Consumer<ZkEvent>> watchers = new ConcurrentHashMap<>();

    CountingPort(ZkPort delegate, Ledger ledger, String name) {
        super(delegate);
        this.ledger = ledger;
        this.name = name;
    }

    private <T> T trip(boolean write, Supplier<T> request) {
        Step after = RoundTrips.now().after(write);
        try {
            return request.get();
        } finally {
            RoundTrips.set(after);
        }
    }

    @FunctionalInterface
    private interface Write<T> {
        T send() throws ZkFailure;
    }

    private <T> T write(List<ZkOp> ops, Write<T> request) throws ZkFailure {
        Step after = RoundTrips.now().after(true);
        try {
            T result = request.send();
            ledger.wrote(ops, after);
            return result;
        } finally {
            RoundTrips.set(after);
        }
    }

    private Runnable heard(String path, Runnable hook) {
        return hook == null ? null : () -> RoundTrips.run(ledger.writtenAt(path), hook);
    }

    @Override
    public Optional<ZkNode> read(String path, Runnable hook) {
        ledger.read(name, path, RoundTrips.now());
        return trip(false, () -> delegate.read(path, heard(path, hook)));
    }

    @Override
    public Optional<ZkNode> readIfPresentWatching(String path, Runnable hook) {
        ledger.read(name, path, RoundTrips.now());
        return trip(false, () -> delegate.readIfPresentWatching(path, heard(path, hook)));
    }

    @Override
    public CompletableFuture<Optional<ZkNode>> readAsync(String path, Runnable hook) {
        ledger.read(name, path, RoundTrips.now());
        return DepthFuture.of(
                delegate.readAsync(path, heard(path, hook)), RoundTrips.now().after(false));
    }

    @Override
    public Optional<ZkStat> exists(String path, Runnable hook) {
        return trip(false, () -> delegate.exists(path, heard(path, hook)));
    }

    @Override
    public List<String> children(String path, Runnable hook) {
        return trip(false, () -> delegate.children(path, heard(path, hook)));
    }

    @Override
    public CompletableFuture<List<String>> childrenAsync(String path) {
        return DepthFuture.of(delegate.childrenAsync(path), RoundTrips.now().after(false));
    }

    @Override
    public void sync(String path) {
        trip(false, () -> {
            delegate.sync(path);
            return null;
        });
    }

    @Override
    public void ensurePath(String path, byte[] data) {
        trip(true, () -> {
            delegate.ensurePath(path, data);
            ledger.wrote(List.of(ZkOp.create(path, data)), RoundTrips.now().after(true));
            return null;
        });
    }

    @Override
    public ZkResult write(ZkOp op) throws ZkFailure {
        return write(List.of(op), () -> delegate.write(op));
    }

    @Override
    public ZkResult createWithParents(String path, byte[] data) throws ZkFailure {
        return write(List.of(ZkOp.create(path, data)), () -> delegate.createWithParents(path, data));
    }

    @Override
    public List<ZkResult> multi(List<ZkOp> ops) throws ZkFailure {
        return write(ops, () -> delegate.multi(ops));
    }

    @Override
    public List<ZkResult> multiInSession(long session, List<ZkOp> ops) throws ZkFailure {
        return write(ops, () -> delegate.multiInSession(session, ops));
    }

    @Override
    public CompletableFuture<Transaction> multiInSessionAsync(long session, List<ZkOp> ops) {
        Step answered = RoundTrips.now().after(true);
        CompletableFuture<Transaction> sent = delegate.multiInSessionAsync(session, ops);
        sent.thenAccept(tx -> {
            if (tx.ok()) {
                ledger.wrote(ops, answered);
            }
        });
        return DepthFuture.of(sent, answered);
    }

    @Override
    public void addPersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) throws ZkFailure {
        Consumer<ZkEvent> heard = e -> RoundTrips.run(
                e.path() == null ? RoundTrips.now() : ledger.writtenAt(e.path()), () -> watcher.accept(e));
        watchers.put(watcher, heard);
        Step after = RoundTrips.now().after(false);
        try {
            delegate.addPersistentWatch(path, recursive, heard);
        } finally {
            RoundTrips.set(after);
        }
    }

    @Override
    public void removePersistentWatch(String path, boolean recursive, Consumer<ZkEvent> watcher) {
        Consumer<ZkEvent> heard = watchers.remove(watcher);
        delegate.removePersistentWatch(path, recursive, heard != null ? heard : watcher);
    }
}
