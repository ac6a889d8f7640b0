package io.groupkeeper.zookeeper.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Holds requests back after one lost its connection, until the next connection is reported.
 *
 * <p>Why: ZooKeeper's handle keeps saying CONNECTED for up to a second after its socket broke (it sleeps a random
 * moment before reconnecting, and only then says CONNECTING), and a request queued in that window waits for the next
 * connection: behind a silent network cut, until the session expires. Connections are counted, so a loss reported late
 * (after the reconnection it belongs to) holds nothing back.
 */
final class LostConnectionGate {

    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong lostIn = new AtomicLong(-1);

    /** The connection a request about to be sent goes out in, or -1 if requests are held back. */
    long enter() {
        long connection = connections.get();
        return lostIn.get() >= connection ? -1 : connection;
    }

    /** A request sent in {@code connection} failed with a lost connection. */
    void lost(long connection) {
        lostIn.accumulateAndGet(connection, Math::max);
    }

    /** A (re)connection was reported. */
    void connected() {
        connections.incrementAndGet();
    }
}
