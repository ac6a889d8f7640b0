package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code groupkeeper monitor} as a command: serves until stopped, and bad input gets one clear error. */
class MonitorCommandIT extends CliTestSupport {

    @Test
    void monitorServesUntilStoppedAndPrintsWhereItListens() throws Exception {
        String group = unique("cmd");
        String topic = unique("cmdt");
        topic(topic, 1);
        seed(group, offsetsOf(topic, 0));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread monitor = new Thread(
                () -> exit.set(GroupkeeperCli.run(
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        "monitor",
                        "--zk",
                        zk(),
                        "--bootstrap",
                        bootstrap(),
                        "--port",
                        "0",
                        "--bind",
                        "127.0.0.1",
                        "--interval",
                        "PT0.5S")),
                "monitor");
        monitor.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> out.toString().contains("monitor serving"));
            Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/").matcher(out.toString());
            assertThat(m.find()).as(out.toString()).isTrue();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> health = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/health"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            HttpResponse<String> metrics = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("groupkeeper_monitor_up 1.0", "group=\"" + group + "\"");
        } finally {
            monitor.interrupt(); // in a shell: Ctrl-C
            monitor.join(30_000);
        }
        assertThat(monitor.isAlive()).isFalse();
        assertThat(exit.get()).as(err.toString()).isZero();
        assertThat(out.toString()).endsWith("monitor stopped\n");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void badInputIsOneClearError() {
        assertThat(gk("monitor", "--port", "70000").failed(2)).contains("--port must be 0..65535, was 70000");
        assertThat(gk("monitor", "--interval", "PT0S").failed(2)).contains("--interval must be positive");
        assertThat(gk("monitor", "--max-lag-time", "-PT1M").failed(2)).contains("--max-lag-time must be positive");
        assertThat(gk("monitor", "--interval", "soon").failed(2)).contains("--interval");
        assertThat(cli("monitor", "--zk", "127.0.0.1:1", "--timeout", "1", "--port", "0")
                        .failed(1))
                .contains("127.0.0.1:1");
    }

    @Test
    void aPortInUseIsOneClearError() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(gk("monitor", "--port", String.valueOf(taken.getLocalPort()), "--bind", "127.0.0.1")
                            .failed(1))
                    .contains("cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }
}
