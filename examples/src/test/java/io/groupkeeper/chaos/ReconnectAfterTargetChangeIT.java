package io.groupkeeper.chaos;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.embedded.EmbeddedServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * I6 after a connection loss that the session survives (found by the long chaos run: a partition stayed owned by a
 * member that no longer had it as target, and the group never caught up). Member {@code m} is cut off; while it is,
 * two members join and the leader moves one of {@code m}'s partitions to a newcomer; {@code m} notices (SUSPENDED),
 * reports its partitions lost, and reconnects with the same session. Its owner node of the partition it no longer has
 * as target was created by that session, so it does not go by itself: {@code m} must hand it over, or the newcomer
 * waits for ever.
 */
class ReconnectAfterTargetChangeIT {

    private static final Duration SESSION = Duration.ofSeconds(9);

    @Test
    void aMemberThatReconnectsWithItsSessionReleasesThePartitionsItNoLongerHasAsTarget() throws Exception {
        try (EmbeddedServers servers = EmbeddedServers.startDefault()) {
            servers.kafka().createTopic("moved", 4);
            int zkPort = Integer.parseInt(servers.zkConnectString().replaceAll(".*:", ""));
            ChaosLedger ledger = new ChaosLedger();
            // No records and no periodic commit during the test: no ZooKeeper call is in flight when m is cut off
            // (that is LossNoticeUnderPartitionIT's bug), so m notices at once and this test sees only the reconnect.
            ChaosMember.Config config = new ChaosMember.Config(
                    List.of(zkPort),
                    servers.bootstrapServers(),
                    "moved",
                    SESSION,
                    Duration.ofMinutes(5),
                    Duration.ofSeconds(20),
                    50);
            {
                ChaosMember leader = ChaosMember.start("g", "leader", config, ledger); // the first member leads
                await().atMost(Duration.ofSeconds(30)).until(() -> leader.owned() == 4);
                ChaosMember m = ChaosMember.start("g", "m", config, ledger);
                await().atMost(Duration.ofSeconds(30)).until(() -> leader.owned() == 2 && m.owned() == 2);

                m.partition(60_000); // silent: m hears nothing, and the servers hear nothing from m
                ChaosMember n1 = ChaosMember.start("g", "n1", config, ledger);
                ChaosMember n2 = ChaosMember.start("g", "n2", config, ledger);
                // m's client notices (read timeout: two thirds of the session timeout) and reports its partitions lost
                await().atMost(SESSION)
                        .until(() -> ledger.ownerships().stream()
                                .anyMatch(o -> o.member().equals("m") && o.end() == End.LOST));
                m.heal(); // back before the session can expire: same session, same owner nodes

                try {
                    // four members, four partitions: each must end up with one, m's moved partition included
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> leader.owned() == 1 && m.owned() == 1 && n1.owned() == 1 && n2.owned() == 1);
                } finally {
                    for (ChaosMember c : List.of(n2, n1, m, leader)) {
                        c.leave();
                        c.awaitDone(Duration.ofSeconds(30));
                    }
                }
            }
        }
    }
}
