package io.groupkeeper.internal;

import io.groupkeeper.spi.ConnectionEvent;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.GroupStores;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The session around a {@link ScriptedGroupStore}: connection listeners, told of the events a test fires on the
 * calling thread (as the store's own thread would tell them); {@link #disconnect} and {@link #reconnect} also make
 * the group store's calls fail or work again.
 */
final class ScriptedCoordinationStore implements CoordinationStore {

    static {
        GroupStores.register(ScriptedCoordinationStore.class, ScriptedCoordinationStore::groupStore);
    }

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

    final ScriptedGroupStore group;
    final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();

    ScriptedCoordinationStore(ScriptedGroupStore group) {
        this.group = group;
    }

    void fire(ConnectionEvent event) {
        listeners.forEach(l -> l.stateChanged(event));
    }

    /** The connection drops: calls fail, SUSPENDED is heard. */
    void disconnect() {
        group.disconnected = true;
        fire(ConnectionEvent.SUSPENDED);
    }

    /** The connection is back in the same session. */
    void reconnect() {
        group.disconnected = false;
        fire(ConnectionEvent.RECONNECTED);
    }

    /** The session was given up while disconnected, and the connection is back in a new one. */
    void reconnectInNewSession() {
        group.newSession();
        fire(ConnectionEvent.LOST);
        group.disconnected = false;
        fire(ConnectionEvent.RECONNECTED_NEW_SESSION);
    }

    @Override
    public void start() {}

    GroupStore groupStore(String groupId) {
        return group;
    }

    @Override
    public TopicRegistry topics() {
        throw new UnsupportedOperationException("the member reads partition counts from its config");
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeConnectionListener(ConnectionListener listener) {
        listeners.remove(listener);
    }

    @Override
    public long sessionId() {
        return group.session;
    }

    @Override
    public boolean isConnected() {
        return !group.disconnected;
    }

    @Override
    public Duration sessionTimeout() {
        return SESSION_TIMEOUT;
    }

    @Override
    public String describe() {
        return "scripted";
    }

    @Override
    public void close() {}
}
