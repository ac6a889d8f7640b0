package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.groupkeeper.GroupKeeper;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A bootstrap server on a port where nothing listens (a typo in the port): {@code start()}, {@code poll(timeout)} and
 * {@code close()} each return within their own time, and one line says Kafka cannot be reached (issue 48). Before,
 * {@code poll(500 ms)} of a member given partitions blocked for the look-up of their start (10 s a question), and
 * {@code close()} waited for the leader's partition-count question to time out.
 */
class KafkaUnreachableIT extends KafkaTestSupport {

    private ListAppender<ILoggingEvent> log;

    @AfterEach
    void stopCapturing() {
        if (log != null) {
            stopCapture(log);
        }
    }

    private static String closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void aLoneMemberOnAClosedPortStartsPollsAndClosesWithinItsTimeoutsAndSaysKafkaCannotBeReached() throws Exception {
        String bootstrap = closedPort();
        log = captureWarnings();
        GroupKeeper keeper = newKeeper();
        String group = newName("g");
        CoordinatedConsumer<String, String> c = consumer(keeper, group, newName("t"))
                .kafkaProperty("bootstrap.servers", bootstrap)
                .build();

        long startMs = timed(c::start);
        List<Long> polls = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // long enough for the leader's partition-count question to be under way
            polls.add(timed(
                    () -> assertThat(c.poll(Duration.ofMillis(500)).isEmpty()).isTrue()));
        }
        long closeMs = timed(c::close);

        System.out.printf("lone member: start() %d ms, poll(500 ms) %s ms, close() %d ms%n", startMs, polls, closeMs);
        assertThat(startMs).as("start()").isLessThan(6_000);
        assertThat(polls).as("poll(500 ms)").allMatch(ms -> ms < 2_500);
        assertThat(closeMs).as("close()").isLessThan(3_000);
        // group and member from the MDC, not written again in the message
        String line = group + "/" + c.memberId() + " - Kafka at " + bootstrap + " cannot be reached: no answer to a "
                + "metadata request within 1\\d\\d\\d ms \\(is bootstrap.servers right\\?\\)";
        assertThat(warnings(log)).filteredOn(l -> l.matches(line)).hasSize(1);
    }

    @Test
    void aMemberOnAClosedPortGivenPartitionsByItsLeaderPollsWithinItsTimeout() throws Exception {
        String topic = newTopic(2);
        String group = newName("g");
        CoordinatedConsumer<String, String> leader =
                consumer(newKeeper(), group, topic).build().start();
        toClose.add(leader);
        await().atMost(WAIT)
                .until(() -> leader.poll(Duration.ofMillis(50)) != null
                        && leader.assignment().size() == 2);
        CoordinatedConsumer<String, String> lost = consumer(newKeeper(), group, topic)
                .kafkaProperty("bootstrap.servers", closedPort())
                .build();
        lost.start();
        List<Long> polls = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            leader.poll(Duration.ofMillis(50));
            polls.add(timed(() -> lost.poll(Duration.ofMillis(500))));
            return !lost.assignment().isEmpty();
        });
        // The leader stored its start there: an operator removes that offset, so the member must look its start up
        // again, from a Kafka it cannot reach.
        org.apache.kafka.common.TopicPartition tp = lost.assignment().iterator().next();
        zk.curator()
                .delete()
                .forPath(io.groupkeeper.zkprotocol.internal.ZkPaths.offset(
                        group, io.groupkeeper.TopicPartition.of(tp.topic(), tp.partition())));
        for (int i = 0; i < 4; i++) {
            polls.add(timed(() -> lost.poll(Duration.ofMillis(500))));
        }

        long closeMs = timed(lost::close);
        System.out.printf("member given partitions: poll(500 ms) %s ms, close() %d ms%n", polls, closeMs);
        assertThat(polls).as("poll(500 ms)").allMatch(ms -> ms < 2_500);
        assertThat(closeMs).as("close()").isLessThan(8_000);
    }

    private static long timed(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
