package io.groupkeeper.examples;

import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A TCP proxy between one member and the ZooKeeper ensemble (for the zombie example and the chaos run) (one local port per server), so the run can cut that
 * member off the way a network partition does: {@link #partition()} silently drops every byte both ways and holds new
 * connections open without forwarding them — no reset, no error, the client only notices through its own read
 * timeout (two thirds of the session timeout), exactly as on a real network. The servers stop hearing the client's
 * pings and expire its session after the session timeout. {@link #heal()} closes whatever was cut, so the client
 * reconnects cleanly, and forwards again.
 */
public final class ZkProxy implements AutoCloseable {

    private final List<ServerSocket> listeners = new ArrayList<>();
    private final Map<Integer, Integer> targetOf = new HashMap<>();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final String name;
    private volatile boolean partitioned;
    private volatile boolean closed;

    /** Listens on a free local port for each of {@code serverPorts} (127.0.0.1). */
    public ZkProxy(String name, List<Integer> serverPorts) throws IOException {
        this.name = name;
        for (int target : serverPorts) {
            ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            listeners.add(ss);
            targetOf.put(ss.getLocalPort(), target);
            Thread t = new Thread(() -> accept(ss, target), "zkproxy-" + name + "-" + ss.getLocalPort());
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * Curator's ensemble tracker reads the servers' real addresses from {@code /zookeeper/config} and, at the next
     * reconnection, connects straight to them — around the proxy, ending any partition early. A reach into Curator
     * for the examples and tests only (the store does not expose the option): the tracker is removed before the client
     * starts, exactly as {@code CuratorFrameworkFactory.builder().ensembleTracker(false)} would.
     */
    public static void keepBehind(ZooKeeperStore store) {
        try {
            Field tracker = store.curator().getClass().getDeclaredField("ensembleTracker");
            tracker.setAccessible(true);
            tracker.set(store.curator(), null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot keep the member behind its proxy", e);
        }
    }

    /** The connect string a member uses instead of the ensemble's. */
    public String connectString() {
        return listeners.stream().map(ss -> "127.0.0.1:" + ss.getLocalPort()).collect(Collectors.joining(","));
    }

    /** The ensemble port behind a local proxy port, if it is one of ours. */
    public Optional<Integer> target(int localPort) {
        return Optional.ofNullable(targetOf.get(localPort));
    }

    public void partition() {
        partitioned = true;
    }

    public void heal() {
        partitioned = false;
        for (Socket s : open) {
            closeQuietly(s); // streams cut mid-way cannot be resumed; the client reconnects
        }
    }

    public boolean isPartitioned() {
        return partitioned;
    }

    private void accept(ServerSocket ss, int target) {
        while (!closed) {
            Socket client;
            try {
                client = ss.accept();
            } catch (IOException e) {
                return; // closed
            }
            open.add(client);
            if (partitioned) {
                continue; // held open, never answered: the client's connect attempt times out
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2_000);
            } catch (IOException e) {
                closeQuietly(client); // that server is down: the client tries the next one
                closeQuietly(upstream);
                continue;
            }
            open.add(upstream);
            pump(client, upstream, "up");
            pump(upstream, client, "down");
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[16 * 1024];
                    try {
                        InputStream in = from.getInputStream();
                        OutputStream out = to.getOutputStream();
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            if (!partitioned) {
                                out.write(buf, 0, n);
                                out.flush();
                            } // else: dropped on the floor, like packets into a partition
                        }
                    } catch (IOException e) {
                        // one side closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        open.remove(from);
                        open.remove(to);
                    }
                },
                "zkproxy-" + name + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ServerSocket ss : listeners) {
            try {
                ss.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        open.forEach(ZkProxy::closeQuietly);
    }
}
