package io.groupkeeper.benchmarks.rebalance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP forwarder between one ZooKeeper client and the server, so the harness can "crash" a member the way
 * a killed process or a cut network does: {@link #blackhole()} stops forwarding and accepts new connections without
 * ever answering them, so the server hears nothing more from that session and expires it after the session timeout
 * (deleting its ephemeral nodes), while nothing is closed cleanly. Only 127.0.0.1 is involved.
 */
public final class BlackholeProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean blackholed;
    private volatile boolean closed;

    public BlackholeProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "zk-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Blackholes {@code proxy}; a member started outside a crash scenario has none and cannot be crashed. */
    static void cut(BlackholeProxy proxy) {
        if (proxy == null) {
            throw new IllegalStateException("only a member started for the crash scenario can be crashed");
        }
        proxy.blackhole();
    }

    public String connectString() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                if (blackholed) {
                    continue; // hold it open, say nothing
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                upstream.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[64 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            if (blackholed) {
                                // Swallow everything from now on; keep the socket open so nobody sees a clean close.
                                continue;
                            }
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // connection ended
                    }
                },
                "zk-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** From now on nothing passes in either direction, and new connections are accepted and ignored. */
    public void blackhole() {
        blackholed = true;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
