package io.groupkeeper.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.embedded.EmbeddedServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * I7 under a silent network partition (found by the chaos run, see docs/reliability.md): a member that is cut off
 * the ensemble must tell its user code that it lost its partitions before its session can expire — here within the
 * 5 s session timeout of the cut, and before anyone else is given them — even when a commit is in flight at the cut.
 * It used to fail: the commit waited in Curator's retries (each retry first waits up to the connection timeout for a
 * connection) past the session timeout, with the polling thread inside {@code poll()} (measured then: told 33 s after
 * the cut, while b was given the partition 5.1 s after it). Since operations that fail for a lost connection are no
 * longer retried by the store ({@code NoRetryWhileDisconnected}), and the adapter skips periodic commits while the
 * connection is down, the loss is told at the client's read timeout (two thirds of the session timeout).
 */
class LossNoticeUnderPartitionIT {

    private static final Duration SESSION = Duration.ofSeconds(5);

    @Test
    void aMemberCutOffSilentlyIsToldItLostItsPartitionsBeforeItsSessionCanExpire() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault()) {
            servers.kafka().createTopic("cut", 2);
            int zkPort = Integer.parseInt(servers.zkConnectString().replaceAll(".*:", ""));
            ChaosLedger ledger = new ChaosLedger();
            // commits every 100 ms while records flow, so one is in flight when the cut comes, as in production
            ChaosMember.Config config = new ChaosMember.Config(
                    List.of(zkPort),
                    servers.bootstrapServers(),
                    "cut",
                    SESSION,
                    Duration.ofMillis(100),
                    Duration.ofSeconds(20),
                    50);
            try (RecordProducer producer =
                    new RecordProducer(servers.bootstrapServers(), "cut", () -> 2).start(5, 20)) {
                ChaosMember a = ChaosMember.start("g", "a", config, ledger);
                ChaosMember b = ChaosMember.start("g", "b", config, ledger);
                try {
                    await().atMost(Duration.ofSeconds(30)).until(() -> a.owned() == 1 && b.owned() == 1);
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> ledger.processed().stream()
                                    .anyMatch(p -> p.member().equals("a")));

                    long cut = System.currentTimeMillis();
                    a.partition(60_000); // silent: no reset, no error; only a's own read timeout tells it

                    await().atMost(Duration.ofSeconds(40)).until(() -> b.owned() == 2);
                    await().atMost(Duration.ofSeconds(40))
                            .until(() -> ledger.ownerships().stream()
                                    .anyMatch(o -> o.member().equals("a") && o.end() == End.LOST));
                    Ownership lost = ledger.ownerships().stream()
                            .filter(o -> o.member().equals("a") && o.end() == End.LOST)
                            .findFirst()
                            .orElseThrow();
                    // b counts a partition owned a moment before its listener notes since when.
                    long takenOver = await().atMost(Duration.ofSeconds(10))
                            .until(() -> b.ownedSince(lost.partition()), java.util.Optional::isPresent)
                            .orElseThrow();
                    String story = String.format(
                            "a was told of the loss %d ms after the cut (session timeout %d ms); "
                                    + "b was given the partition %d ms after the cut",
                            lost.notifiedMillis() - cut, SESSION.toMillis(), takenOver - cut);
                    long lastByA = ledger.processed().stream()
                            .filter(p -> p.member().equals("a"))
                            .mapToLong(ChaosLedger.Processed::doneMillis)
                            .max()
                            .orElse(0);
                    story += String.format(
                            "; a's user code processed its last record %d ms after the cut and had "
                                    + "been inside poll() since %d ms after it",
                            lastByA - cut, lost.toMillis() - cut);
                    System.out.println(story);
                    assertThat(lastByA).as("I1: " + story).isLessThan(takenOver);
                    assertThat(lost.notifiedMillis()).as(story).isLessThan(takenOver);
                    assertThat(lost.notifiedMillis() - cut).as(story).isLessThan(SESSION.toMillis());
                } finally {
                    a.crash(false);
                    a.cleanUp();
                    b.leave();
                    b.awaitDone(Duration.ofSeconds(30));
                }
            }
        }
    }
}
