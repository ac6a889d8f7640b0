package io.groupkeeper.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.testkit.ManualClock;
import io.groupkeeper.testkit.NodeStat;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ZooKeeper's semantics in the model: versions, zxids, transactions, watches and sessions. Events run inline. */
class EnsembleTest {

    private final ManualClock clock = new ManualClock();
    private final Ensemble ensemble = new Ensemble(clock);
    private final List<String> events = new ArrayList<>();
    private final List<Long> expired = new ArrayList<>();

    private long session() {
        return ensemble.openSession(Duration.ofSeconds(4), new EventLane(Runnable::run), expired::add);
    }

    private Watcher recorder(String name) {
        return e -> events.add(name + ":" + e.type() + ":" + e.path());
    }

    @Test
    void aNodeCreatedAgainStartsAtVersionZeroWhileZxidsKeepGrowing() throws Exception {
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("x"))));
        ensemble.multi(0, List.of(new Op.SetData("/a", b("y"), 0)));
        NodeStat written = ensemble.exists(0, "/a", null);
        assertThat(written.version()).isEqualTo(1);
        ensemble.multi(0, List.of(new Op.Delete("/a", 1)));
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("z"))));

        NodeStat again = ensemble.exists(0, "/a", null);
        assertThat(again.version()).isZero();
        assertThat(again.czxid()).isGreaterThan(written.mzxid());
        assertThat(ensemble.exists(0, "/", null).cversion())
                .as("two creations, one deletion")
                .isEqualTo(3);
    }

    @Test
    void aTransactionIsAllOrNothingAndNamesTheOperationThatFailed() throws Exception {
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("x"))));
        long zxid = ensemble.lastZxid();

        assertThatThrownBy(() -> ensemble.multi(
                        0,
                        List.of(
                                Op.Create.persistent("/b", b("new")),
                                new Op.SetData("/a", b("changed"), 0),
                                new Op.Check("/a", 0))))
                .isInstanceOfSatisfying(KeeperFailure.class, e -> {
                    assertThat(e.code()).isEqualTo(Code.BADVERSION);
                    assertThat(e.failedOp()).isEqualTo(2);
                });
        assertThat(ensemble.exists(0, "/b", null)).isNull();
        assertThat(ensemble.getData(0, "/a", null).data()).isEqualTo(b("x"));
        assertThat(ensemble.exists(0, "/a", null).version()).isZero();
        assertThat(ensemble.lastZxid()).isEqualTo(zxid);

        List<Op.Result> results =
                ensemble.multi(0, List.of(Op.Create.persistent("/b", b("new")), new Op.SetData("/a", b("changed"), 0)));
        assertThat(results.get(0).stat().czxid())
                .isEqualTo(results.get(1).stat().mzxid())
                .isEqualTo(zxid + 1);
    }

    @Test
    void sequentialNodesTakeTheirNumberFromTheParentsChildVersion() throws Exception {
        ensemble.multi(0, List.of(Op.Create.persistent("/l", null)));
        long s = session();
        String first = ensemble.multi(s, List.of(new Op.Create("/l/n-", b("a"), true, true)))
                .get(0)
                .path();
        String second = ensemble.multi(s, List.of(new Op.Create("/l/n-", b("b"), true, true)))
                .get(0)
                .path();
        assertThat(first).isEqualTo("/l/n-0000000000");
        assertThat(second).isEqualTo("/l/n-0000000001");
        assertThatThrownBy(() -> ensemble.multi(s, List.of(Op.Create.persistent(first + "/child", null))))
                .isInstanceOfSatisfying(
                        KeeperFailure.class, e -> assertThat(e.code()).isEqualTo(Code.NOCHILDRENFOREPHEMERALS));
    }

    @Test
    void oneShotWatchesFireOnceAndPersistentRecursiveOnesForEveryDescendant() throws Exception {
        long s = session();
        ensemble.multi(0, List.of(Op.Create.persistent("/f", null)));
        ensemble.exists(s, "/f/a", recorder("exists"));
        ensemble.getChildren(s, "/f", recorder("children"));
        ensemble.addPersistentRecursiveWatch(s, "/f", recorder("recursive"));

        ensemble.multi(0, List.of(Op.Create.persistent("/f/a", b("1"))));
        ensemble.multi(0, List.of(new Op.SetData("/f/a", b("2"), -1)));
        ensemble.multi(0, List.of(Op.Create.persistent("/f/b", b("1"))));

        assertThat(events)
                .containsExactly(
                        "exists:NODE_CREATED:/f/a",
                        "children:NODE_CHILDREN_CHANGED:/f",
                        "recursive:NODE_CREATED:/f/a",
                        "recursive:NODE_DATA_CHANGED:/f/a",
                        "recursive:NODE_CREATED:/f/b");
    }

    @Test
    void expiryDeletesTheSessionsEphemeralNodesFiresOthersWatchesAndTellsItsClient() throws Exception {
        ensemble.multi(0, List.of(Op.Create.persistent("/owners", null)));
        long owner = session();
        long watcher = session();
        ensemble.multi(owner, List.of(Op.Create.ephemeral("/owners/0", b("me"))));
        ensemble.getData(watcher, "/owners/0", recorder("other"));

        ensemble.expire(owner);
        assertThat(ensemble.exists(0, "/owners/0", null)).isNull();
        assertThat(events).containsExactly("other:NODE_DELETED:/owners/0");
        assertThat(expired).containsExactly(owner);
        assertThatThrownBy(() -> ensemble.exists(owner, "/owners", null))
                .isInstanceOfSatisfying(
                        KeeperFailure.class, e -> assertThat(e.code()).isEqualTo(Code.SESSIONEXPIRED));
    }

    @Test
    void aDisconnectedSessionExpiresWhenItsTimeoutPassesOnTheClockAndHoldsItsNotificationsUntilThen() throws Exception {
        ensemble.multi(0, List.of(Op.Create.persistent("/n", b("0"))));
        long s = session();
        ensemble.getData(s, "/n", recorder("held"));
        ensemble.disconnect(s);
        assertThatThrownBy(() -> ensemble.exists(s, "/n", null))
                .isInstanceOfSatisfying(
                        KeeperFailure.class, e -> assertThat(e.code()).isEqualTo(Code.CONNECTIONLOSS));
        ensemble.multi(0, List.of(new Op.SetData("/n", b("1"), -1)));
        assertThat(events).as("held while disconnected").isEmpty();

        clock.advance(Duration.ofSeconds(3));
        ensemble.expireDueSessions();
        assertThat(ensemble.reconnect(s)).isTrue();
        ensemble.releaseHeld(s);
        assertThat(events).containsExactly("held:NODE_DATA_CHANGED:/n");

        ensemble.disconnect(s);
        clock.advance(Duration.ofSeconds(4));
        ensemble.expireDueSessions();
        assertThat(expired).containsExactly(s);
        assertThat(ensemble.reconnect(s)).isFalse();
    }

    private static byte[] b(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
