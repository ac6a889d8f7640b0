package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.spi.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Curator client and waits for its first session, failing fast with one line that says why: no host resolves,
 * nothing listens (said once per attempt, not by the ZooKeeper client's stack trace per attempt), a server accepts
 * connections but no session comes (not ZooKeeper, or TLS expected), the connect string's chroot is missing. The one
 * way every groupkeeper connection is opened: the store's ({@code ZooKeeperStore}) and the admin's read-only sources.
 * On failure the client is left to the caller to close.
 */
public final class SessionOpener {

    private static final Logger LOG = LoggerFactory.getLogger(SessionOpener.class);

    private SessionOpener() {}

    /**
     * Starts {@code client} (built on {@code cs}) and waits up to {@code timeout} for a session; {@code beforeStart} runs
     * once a server accepts connections, right before the client starts (to register listeners). Throws {@link
     * StoreException} naming the connect string and what is wrong.
     */
    public static void open(CuratorFramework client, ConnectString cs, Duration timeout, Runnable beforeStart) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ConnectString.Server> unresolved = cs.unresolved();
        if (unresolved.size() == cs.servers().size()) {
            throw new StoreException("cannot connect to ZooKeeper at " + cs + ": no server's host resolves "
                    + "(unknown host "
                    + String.join(
                            ", ",
                            unresolved.stream().map(ConnectString.Server::host).toList())
                    + ")");
        }
        if (!unresolved.isEmpty()) {
            LOG.warn(
                    "ZooKeeper servers {} of {} do not resolve (unknown host); connecting to the others",
                    unresolved,
                    cs);
        }
        awaitReachable(cs, timeout, deadline);
        beforeStart.run();
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected((int) Math.max(1, remainingMs(deadline)), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            throw new StoreException("cannot connect to ZooKeeper at " + cs + " within " + timeout.toMillis()
                    + " ms (a server accepts connections but no session was established: is it a ZooKeeper server, "
                    + "and does it expect TLS (zookeeper.client.secure)?)");
        }
        requireChroot(client, cs);
    }

    /** Waits until some server accepts a TCP connection, before the ZooKeeper client is started. */
    private static void awaitReachable(ConnectString cs, Duration timeout, long deadline) {
        for (int attempt = 1; ; attempt++) {
            // At least 200 ms a probe, so that the last one still tells a refusal from a silence.
            String why = cs.whyUnreachable((int) Math.min(1_000, Math.max(200, remainingMs(deadline))));
            if (why == null) {
                return;
            }
            long left = remainingMs(deadline);
            if (left <= 0) {
                throw new StoreException(
                        "cannot connect to ZooKeeper at " + cs + " within " + timeout.toMillis() + " ms: " + why);
            }
            LOG.warn(
                    "ZooKeeper at {} cannot be reached ({}); attempt {}, trying again for {} ms more",
                    cs,
                    why,
                    attempt,
                    left);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(1_000, left)));
            if (Thread.currentThread().isInterrupted()) {
                throw new StoreException("interrupted while connecting to ZooKeeper at " + cs);
            }
        }
    }

    /** A chroot in the connect string must exist: ZooKeeper does not create it, and every call would fail NONODE. */
    private static void requireChroot(CuratorFramework client, ConnectString cs) {
        if (cs.chroot() == null) {
            return;
        }
        boolean exists;
        try {
            exists = client.getZookeeperClient().getZooKeeper().exists("/", false) != null;
        } catch (Exception e) {
            exists = true; // not known: let the first real call say what is wrong
        }
        if (!exists) {
            String namespace = client.getNamespace();
            throw new StoreException("the chroot " + cs.chroot() + " of the connect string '" + cs + "' does not exist "
                    + "in ZooKeeper: create it, or leave it out of the connect string"
                    + (namespace == null || namespace.isEmpty()
                            ? ""
                            : " and use namespace(\"" + cs.chroot().substring(1) + "/" + namespace + "\")"));
        }
    }

    private static long remainingMs(long deadlineNanos) {
        return TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    }
}
