package io.groupkeeper.zookeeper.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy to one server that can stall: while stalled, the bytes of every connection, both ways, are held (not
 * dropped, and the connections stay open) and go on when it flows again, as on a network that loses packets for a
 * while and whose TCP retransmits them once it is back. The client hears nothing until its own read timeout.
 */
final class StallingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private boolean stalled; // guarded by this
    private volatile boolean closed;

    StallingProxy(int target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "stalling-proxy-" + listener.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    synchronized void stall() {
        stalled = true;
    }

    synchronized void flow() {
        stalled = false;
        notifyAll();
    }

    private synchronized void awaitFlow() throws InterruptedException {
        while (stalled && !closed) {
            wait();
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2_000);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // closed, or the server is gone: the client tries again
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[16 * 1024];
                    try {
                        InputStream in = from.getInputStream();
                        OutputStream out = to.getOutputStream();
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            awaitFlow(); // held, not dropped
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // one side closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "stalling-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        flow();
        listener.close();
        open.forEach(this::closeQuietly);
    }
}
