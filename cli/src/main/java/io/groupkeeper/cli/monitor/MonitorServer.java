package io.groupkeeper.cli.monitor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor's HTTP side on the JDK's {@code com.sun.net.httpserver}: {@code /metrics} (Prometheus text format),
 * {@code /health} (JSON; 200 while ZooKeeper is reachable, else 503), {@code /} (status page of every group) and
 * {@code /group/<name>} (one group: members, owners, offsets, an hour of lag). GET and HEAD only. Reads the monitor's
 * last published state; never blocks on ZooKeeper or Kafka.
 */
final class MonitorServer {

    private static final Logger LOG = LoggerFactory.getLogger(MonitorServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer http;
    private final ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "groupkeeper-monitor-http");
        t.setDaemon(true);
        return t;
    });
    private final Monitor monitor;
    private final StatusPage page;

    MonitorServer(InetSocketAddress address, Monitor monitor) throws IOException {
        this.monitor = monitor;
        this.page = new StatusPage(monitor);
        this.http = HttpServer.create(address, 0);
        http.setExecutor(threads);
        http.createContext("/", this::handle);
    }

    void start() {
        http.start();
    }

    int port() {
        return http.getAddress().getPort();
    }

    void stop() {
        http.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                send(ex, 405, "text/plain; charset=utf-8", "method not allowed\n");
                return;
            }
            String path = ex.getRequestURI().getRawPath();
            if (path.equals("/metrics")) {
                monitor.metrics().up(monitor.upNow()); // at scrape time: a stalled sampler publishes nothing
                send(
                        ex,
                        200,
                        "text/plain; version=0.0.4; charset=utf-8",
                        monitor.metrics().scrape());
            } else if (path.equals("/health")) {
                health(ex);
            } else if (path.equals("/")) {
                send(ex, 200, "text/html; charset=utf-8", page.index());
            } else if (path.startsWith("/group/")) {
                String name = URLDecoder.decode(path.substring("/group/".length()), StandardCharsets.UTF_8);
                StatusPage.Rendered r = page.group(name);
                send(ex, r.found() ? 200 : 404, "text/html; charset=utf-8", r.html());
            } else {
                send(ex, 404, "text/plain; charset=utf-8", "not found: try /, /metrics or /health\n");
            }
        } catch (RuntimeException e) {
            LOG.warn("monitor: serving {} failed: {}", ex.getRequestURI(), e.toString());
            try {
                send(ex, 500, "text/plain; charset=utf-8", "internal error\n");
            } catch (IOException | RuntimeException ignored) {
                // response already started
            }
        }
    }

    private void health(HttpExchange ex) throws IOException {
        Monitor.State s = monitor.state();
        boolean stale = monitor.stale();
        boolean healthy = s.zookeeperUp() && !stale;
        ObjectNode n = JSON.createObjectNode();
        n.put("status", healthy ? "UP" : "DOWN");
        n.put("zookeeper", s.zookeeperUp());
        if (s.kafkaConfigured()) {
            n.put("kafka", s.kafkaUp());
        } else {
            n.putNull("kafka");
        }
        n.put("up", s.up() && !stale);
        n.put("groups", s.groups().size());
        n.put("lastSample", s.at().toString());
        n.put("stale", stale);
        n.put("samples", s.samples());
        n.putArray("errors")
                .addAll(s.errors().stream().map(JSON.getNodeFactory()::textNode).toList());
        send(ex, healthy ? 200 : 503, "application/json", JSON.writeValueAsString(n) + "\n");
    }

    private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(code, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
