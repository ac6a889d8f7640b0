package io.groupkeeper.zookeeper.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A ZooKeeper connect string ({@code host:port[,host:port...][/chroot]}), checked before the ZooKeeper client sees it:
 * every host has a port, and a {@code /} followed by digits (a port typed after a slash, {@code 127.0.0.1/2181}, which
 * ZooKeeper would read as the chroot {@code /2181}) is said so plainly instead of failing later with
 * {@code NONODE /groupkeeper}.
 */
public final class ConnectString {

    /** One server of the connect string. */
    public record Server(String host, int port) {
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private final String raw;
    private final List<Server> servers;
    private final String chroot;

    private ConnectString(String raw, List<Server> servers, String chroot) {
        this.raw = raw;
        this.servers = servers;
        this.chroot = chroot;
    }

    /** Parses {@code raw}; throws {@link IllegalArgumentException} naming what is wrong. */
    public static ConnectString parse(String raw) {
        String s = raw.strip();
        String hostPart = s;
        String chroot = null;
        int slash = s.indexOf('/');
        if (slash >= 0) {
            hostPart = s.substring(0, slash);
            chroot = s.substring(slash);
            if (chroot.substring(1).matches("\\d+") && !lastHasPort(hostPart)) {
                String host = hostPart.contains(",") ? hostPart.substring(hostPart.lastIndexOf(',') + 1) : hostPart;
                throw new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "' has '" + chroot
                        + "' after the host: ZooKeeper reads what follows a '/' as a chroot path, not as a port; write '"
                        + s.substring(0, slash) + ":" + chroot.substring(1) + "' (host " + host + ", port "
                        + chroot.substring(1) + ")");
            }
            if (chroot.length() < 2 || chroot.endsWith("/") || chroot.contains("//")) {
                throw new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "' has an invalid chroot '"
                        + chroot + "' (after the servers, '/path' or nothing; the store's own root is namespace())");
            }
        }
        List<Server> servers = new ArrayList<>();
        for (String entry : hostPart.split(",", -1)) {
            servers.add(server(raw, entry.strip()));
        }
        return new ConnectString(raw, List.copyOf(servers), chroot);
    }

    private static boolean lastHasPort(String hostPart) {
        String last = hostPart.contains(",") ? hostPart.substring(hostPart.lastIndexOf(',') + 1) : hostPart;
        return last.startsWith("[") ? last.contains("]:") : last.contains(":");
    }

    private static Server server(String raw, String entry) {
        if (entry.isEmpty()) {
            throw new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "' has an empty server "
                    + "(write host:port[,host:port...])");
        }
        String host;
        String port;
        if (entry.startsWith("[")) { // IPv6: [::1]:2181
            int close = entry.indexOf("]:");
            if (close < 0) {
                throw noPort(raw, entry);
            }
            host = entry.substring(1, close);
            port = entry.substring(close + 2);
        } else {
            int colon = entry.lastIndexOf(':');
            if (colon < 0) {
                throw noPort(raw, entry);
            }
            if (entry.indexOf(':') != colon) {
                throw new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "': server '" + entry
                        + "' has more than one ':' (an IPv6 address goes in brackets: [::1]:2181)");
            }
            host = entry.substring(0, colon);
            port = entry.substring(colon + 1);
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException(
                    "ZooKeeperStore: connectString '" + raw + "': server '" + entry + "' has no host");
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 1 || p > 65_535) {
            throw new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "': server '" + entry
                    + "' has port '" + port + "', not a number from 1 to 65535");
        }
        return new Server(host, p);
    }

    private static IllegalArgumentException noPort(String raw, String entry) {
        return new IllegalArgumentException("ZooKeeperStore: connectString '" + raw + "': server '" + entry
                + "' has no port (write " + entry + ":2181)");
    }

    public List<Server> servers() {
        return servers;
    }

    /** The chroot of the connect string ({@code /path}), or null. */
    public String chroot() {
        return chroot;
    }

    @Override
    public String toString() {
        return raw;
    }

    /** The servers whose host does not resolve (the lookup the ZooKeeper client will make). */
    public List<Server> unresolved() {
        List<Server> out = new ArrayList<>();
        for (Server s : servers) {
            try {
                InetAddress.getAllByName(s.host());
            } catch (UnknownHostException e) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Why no server accepts a TCP connection within {@code timeoutMs} each (null if one does): the ZooKeeper client
     * is started only once one does, so an unreachable ensemble is said in one line per attempt rather than by the
     * ZooKeeper client's stack trace per attempt.
     */
    public String whyUnreachable(int timeoutMs) {
        StringBuilder why = new StringBuilder();
        for (Server s : servers) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(s.host(), s.port()), Math.max(1, timeoutMs));
                return null;
            } catch (SocketTimeoutException e) {
                append(why, s, "no answer within " + Math.max(1, timeoutMs) + " ms");
            } catch (UnknownHostException e) {
                append(why, s, "unknown host");
            } catch (IOException e) {
                append(why, s, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
        }
        return why.toString();
    }

    private static void append(StringBuilder why, Server s, String reason) {
        if (why.length() > 0) {
            why.append("; ");
        }
        why.append(s).append(": ").append(reason);
    }
}
