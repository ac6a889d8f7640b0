package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.embedded.EmbeddedServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exactly once into Kafka (docs/exactly-once.md): three processes of the examples' {@code transform} command turn a
 * topic that is being written into an output topic while one is killed with {@code SIGKILL} (its transactions left
 * open, its session times out) and another is stopped with {@code SIGSTOP} until its session has expired and its
 * partitions have moved on, then continued (a zombie with open transactions). The output, read with
 * {@code isolation.level=read_committed}, holds every input offset below every log end exactly once.
 *
 * <p>About 40 s (three JVMs, two session timeouts): tagged {@code long}, run with
 * {@code mvn -pl examples -am verify -Plong -Dtest=TransformExactlyOnceIT -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TransformExactlyOnceIT {

    private static final String IN = "orders";
    private static final String OUT = "orders-seen";
    private static final int PARTITIONS = 4;
    private static final String GROUP = "orders-transform";
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Pattern VALUE =
            Pattern.compile("\\{\"topic\":\"" + IN + "\",\"partition\":(\\d+),\"offset\":(\\d+)}");

    /** OUT read with read_committed, from the beginning: how often each input "partition/offset" was seen. */
    static final class CommittedOutput implements AutoCloseable {
        final KafkaConsumer<String, String> reader;
        final Map<String, Integer> seen = new HashMap<>();
        final List<String> malformed = new ArrayList<>();

        CommittedOutput(String bootstrap) {
            reader = new KafkaConsumer<>(
                    Map.of(
                            "bootstrap.servers",
                            bootstrap,
                            "isolation.level",
                            "read_committed",
                            "auto.offset.reset",
                            "earliest"),
                    new StringDeserializer(),
                    new StringDeserializer());
            TopicPartition tp = new TopicPartition(OUT, 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
        }

        /** Reads what is committed; whether every offset below {@code ends} was seen. */
        boolean covers(Map<Integer, Long> ends) {
            for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
                Matcher m = VALUE.matcher(r.value());
                if (m.matches()) {
                    seen.merge(m.group(1) + "/" + m.group(2), 1, Integer::sum);
                } else {
                    malformed.add(r.value());
                }
            }
            for (Map.Entry<Integer, Long> e : ends.entrySet()) {
                for (long o = 0; o < e.getValue(); o++) {
                    if (!seen.containsKey(e.getKey() + "/" + o)) {
                        return false;
                    }
                }
            }
            return true;
        }

        /** Up to the last stable offset (nothing committed is left unread). */
        boolean atEnd() {
            TopicPartition tp = new TopicPartition(OUT, 0);
            return reader.position(tp) >= reader.endOffsets(List.of(tp)).get(tp);
        }

        @Override
        public void close() {
            reader.close(Duration.ofSeconds(5));
        }
    }

    @Test
    @Tag("long")
    void everyInputOffsetIsInTheOutputOnceThroughAKillNineAndAPausePastTheSessionTimeout() throws Exception {
        Path logs = Path.of("target", "transform-exactly-once");
        Files.createDirectories(logs);
        List<Process> processes = new ArrayList<>();
        try (EmbeddedServers servers = EmbeddedServers.startDefault();
                Admin admin = Admin.create(Map.of("bootstrap.servers", servers.bootstrapServers()))) {
            servers.kafka().createTopic(IN, PARTITIONS);
            servers.kafka().createTopic(OUT, 1);
            try (CommittedOutput output = new CommittedOutput(servers.bootstrapServers());
                    RecordProducer producer =
                            new RecordProducer(servers.bootstrapServers(), IN, () -> PARTITIONS).start(10, 10)) {
                for (String name : List.of("a", "b", "c")) {
                    processes.add(transform(name, servers, logs));
                }
                Process a = processes.get(0);
                Process b = processes.get(1);
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> output.covers(Map.of()) && output.seen.size() >= 500);

                a.destroyForcibly(); // kill -9: open transactions, no final commit; the next owners abort them
                Map<Integer, Long> atKill = ExampleProcesses.logEnds(admin, IN, PARTITIONS);
                await().atMost(Duration.ofSeconds(60)).until(() -> output.covers(atKill));

                ExampleProcesses.signal(
                        b, "STOP"); // a pause past the session timeout, most likely with transactions open
                Map<Integer, Long> atStop = ExampleProcesses.logEnds(admin, IN, PARTITIONS);
                await().atMost(Duration.ofSeconds(60)).until(() -> output.covers(atStop));
                ExampleProcesses.signal(
                        b, "CONT"); // the zombie goes on: its producers are fenced, its transactions aborted

                producer.stop();
                Map<Integer, Long> end = ExampleProcesses.logEnds(admin, IN, PARTITIONS);
                await().atMost(Duration.ofSeconds(60)).until(() -> output.covers(end) && output.atEnd());
                // A zombie's late commit would show up after the others': read a while longer.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                await().atMost(Duration.ofSeconds(10)).until(() -> output.covers(end) && System.nanoTime() > until);

                long expected = end.values().stream().mapToLong(Long::longValue).sum();
                assertThat(output.malformed).isEmpty();
                assertThat(output.seen).hasSize((int) expected); // nothing beyond the log ends either
                List<String> duplicates = output.seen.entrySet().stream()
                        .filter(e -> e.getValue() > 1)
                        .map(e -> e.getKey() + " x" + e.getValue())
                        .sorted()
                        .limit(20)
                        .toList();
                assertThat(duplicates).as("inputs in the output more than once").isEmpty();
                System.out.printf(
                        "transform-exactly-once: %d inputs over %d partitions, each once in %s " + "(read_committed)%n",
                        expected, PARTITIONS, OUT);
            }
        } finally {
            ExampleProcesses.stopAll(processes);
        }
    }

    private static Process transform(String name, EmbeddedServers servers, Path logs) throws IOException {
        return ExampleProcesses.start(
                "transform",
                name,
                logs,
                List.of(
                        "--zk",
                        servers.zkConnectString(),
                        "--bootstrap",
                        servers.bootstrapServers(),
                        "--group",
                        GROUP,
                        "--from",
                        IN,
                        "--to",
                        OUT,
                        "--session-timeout-ms",
                        Long.toString(SESSION.toMillis()),
                        "--commit-interval-ms",
                        "200",
                        "-X",
                        "max.poll.records=100",
                        "-X",
                        "fetch.max.wait.ms=100"));
    }
}
