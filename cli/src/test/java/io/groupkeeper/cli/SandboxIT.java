package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/** {@code groupkeeper sandbox}: both servers up, their addresses printed, usable by the CLI, stopped on request. */
class SandboxIT {

    @Test
    void sandboxRunsZooKeeperAndKafkaUntilStopped() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread sandbox = new Thread(
                () -> exit.set(GroupkeeperCli.run(
                        new PrintWriter(out, true), new PrintWriter(err, true), "sandbox", "--topic", "orders:3")),
                "sandbox");
        sandbox.start();
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> out.toString().contains("sandbox running"));
            Matcher zk = Pattern.compile("(?m)^zk=(127\\.0\\.0\\.1:\\d+)$").matcher(out.toString());
            Matcher bootstrap =
                    Pattern.compile("(?m)^bootstrap=(127\\.0\\.0\\.1:\\d+)$").matcher(out.toString());
            assertThat(zk.find()).as(out.toString()).isTrue();
            assertThat(bootstrap.find()).as(out.toString()).isTrue();

            StringWriter listOut = new StringWriter();
            int code = GroupkeeperCli.run(
                    new PrintWriter(listOut, true),
                    new PrintWriter(new StringWriter(), true),
                    "groups",
                    "list",
                    "--zk",
                    zk.group(1));
            assertThat(code).isZero();
            assertThat(listOut.toString()).contains("(no groups)");

            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.group(1));
            try (Admin admin = Admin.create(p)) {
                Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                assertThat(topics).contains("orders");
                assertThat(admin.describeTopics(Set.of("orders"))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get("orders")
                                .partitions())
                        .hasSize(3);
            }
        } finally {
            sandbox.interrupt(); // in a shell: Ctrl-C, through the shutdown hook
            sandbox.join(60_000);
        }
        assertThat(sandbox.isAlive()).isFalse();
        assertThat(exit.get()).isZero();
        assertThat(out.toString()).endsWith("sandbox stopped\n");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void badTopicSpecIsAUsageError() {
        StringWriter err = new StringWriter();
        int code = GroupkeeperCli.run(
                new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "sandbox", "--topic", "orders");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: --topic must be NAME:PARTITIONS like orders:3, was 'orders'");
    }
}
