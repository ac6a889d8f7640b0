package io.groupkeeper.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Loopback port helpers shared by the embedded servers. */
final class Ports {

    static final String LOOPBACK = "127.0.0.1";

    private Ports() {}

    /**
     * Asks the OS for a currently free loopback port. The port is released before it is returned, so another
     * process may grab it before the server binds it; callers that picked the port this way retry on a bind
     * failure.
     */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free loopback port", e);
        }
    }

    /** Validates a port option: 0 means "pick a free loopback port". */
    static int checkPort(String option, int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(
                    option + " must be 0 (pick a free loopback port) or 1..65535, was " + port);
        }
        return port;
    }

    /** True if a TCP listener can bind the loopback port right now. */
    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
