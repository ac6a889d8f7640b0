package io.groupkeeper.zookeeper;

import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A real {@link ZooKeeperStore} whose connection events a test controls: {@link #deaf} never passes the real ones on
 * (a zombie that missed its disconnect: a long GC pause, a frozen VM — fencing in the store, not the member's good
 * behaviour, must keep it from writing); {@link #fire} sends fake ones; {@link #afterClaim} runs after every claim
 * reached ZooKeeper, before its caller sees the result (each claim of a {@code claimAll} batch once the batch is done);
 * {@link #afterRegistration} after every registration.
 */
final class InterposedStore implements CoordinationStore {

    static {
        GroupStores.register(InterposedStore.class, InterposedStore::groupStore);
    }

    private final ZooKeeperStore delegate;
    private final boolean deaf;
    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    volatile Consumer<ClaimResult> afterClaim = r -> {};
    /**
     * Runs after a member's registration ({@code join} or {@code registerMember}) reached ZooKeeper, before its caller
     * sees the result; it may throw (a reply lost).
     */
    volatile Runnable afterRegistration = () -> {};

    private InterposedStore(ZooKeeperStore delegate, boolean deaf) {
        this.delegate = delegate;
        this.deaf = deaf;
    }

    /** Hears nothing of the real connection. */
    static InterposedStore deaf(ZooKeeperStore delegate) {
        return new InterposedStore(delegate, true);
    }

    /** Passes the real connection events on, and the test's fake ones. */
    static InterposedStore hearing(ZooKeeperStore delegate) {
        return new InterposedStore(delegate, false);
    }

    ZooKeeperStore delegate() {
        return delegate;
    }

    void fire(ConnectionEvent event) {
        listeners.forEach(l -> l.stateChanged(event));
    }

    @Override
    public void start() {
        delegate.start();
    }

    GroupStore groupStore(String groupId) {
        GroupStore real = GroupStores.of(delegate, groupId);
        return (GroupStore) Proxy.newProxyInstance(
                GroupStore.class.getClassLoader(), new Class<?>[] {GroupStore.class}, (proxy, method, args) -> {
                    try {
                        Object result = method.invoke(real, args);
                        if (method.getName().equals("join") || method.getName().equals("registerMember")) {
                            afterRegistration.run();
                        } else if (method.getName().equals("claim")) {
                            afterClaim.accept((ClaimResult) result);
                        } else if (method.getName().equals("claimAll")) {
                            // each claim of the batch, done when claimAll returns, before the member records any
                            ((java.util.Map<?, ?>) result).values().forEach(f -> {
                                java.util.concurrent.CompletableFuture<?> claim =
                                        (java.util.concurrent.CompletableFuture<?>) f;
                                if (!claim.isCompletedExceptionally()) {
                                    afterClaim.accept((ClaimResult) claim.join());
                                }
                            });
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public TopicRegistry topics() {
        return delegate.topics();
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        listeners.add(listener);
        if (!deaf) {
            delegate.addConnectionListener(listener);
        }
    }

    @Override
    public void removeConnectionListener(ConnectionListener listener) {
        listeners.remove(listener);
        delegate.removeConnectionListener(listener);
    }

    @Override
    public long sessionId() {
        return delegate.sessionId();
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public java.time.Duration sessionTimeout() {
        return delegate.sessionTimeout();
    }

    @Override
    public String describe() {
        return (deaf ? "deaf " : "interposed ") + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
