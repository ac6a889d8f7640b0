package io.groupkeeper.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.testkit.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Follower lag: reads of a client may miss the latest transactions (at most the bound), but never its own writes, what
 * it was notified of or what came before its {@code sync}, and never go backwards.
 */
class FollowerLagTest {

    /** Followers that move no further than they must: the most lag the rules allow. */
    private static final Random LAZIEST = new Random() {
        @Override
        public int nextInt(int bound) {
            return 0;
        }
    };

    private final Ensemble ensemble = new Ensemble(new ManualClock());
    private final List<String> events = new ArrayList<>();

    private long session() {
        return ensemble.openSession(Duration.ofSeconds(4), new EventLane(Runnable::run), id -> {});
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anotherClientsWriteIsSeenAfterSyncAndOwnWritesAtOnce() throws Exception {
        ensemble.lagFollowers(1, LAZIEST, 10);
        long writer = session();
        long reader = session();
        ensemble.multi(writer, List.of(Op.Create.persistent("/a", b("1"))));

        assertThat(ensemble.getData(writer, "/a", null).data())
                .as("its own write")
                .isEqualTo(b("1"));
        ensemble.multi(writer, List.of(new Op.SetData("/a", b("2"), 0)));
        assertThat(ensemble.getData(reader, "/a", null).data())
                .as("a follower behind the latest write")
                .isEqualTo(b("1"));
        ensemble.sync(reader);
        assertThat(ensemble.getData(reader, "/a", null).data()).isEqualTo(b("2"));
    }

    @Test
    void theLagIsBoundedAndReadsNeverGoBackwards() throws Exception {
        ensemble.lagFollowers(2, new Random(7), 3);
        long reader = session();
        int last = -1;
        for (int i = 0; i < 50; i++) {
            ensemble.multi(
                    0,
                    List.of(
                            i == 0
                                    ? Op.Create.persistent("/n", b("0"))
                                    : new Op.SetData("/n", b(Integer.toString(i)), -1)));
            int seen = Integer.parseInt(
                    new String(ensemble.getData(reader, "/n", null).data(), StandardCharsets.UTF_8));
            assertThat(seen).as("at most 3 transactions behind").isGreaterThanOrEqualTo(i - 3);
            assertThat(seen).as("never backwards").isGreaterThanOrEqualTo(last);
            last = seen;
        }
    }

    @Test
    void aWatchSetOnAStaleViewFiresAtOnceAndTheNextReadSeesTheChange() throws Exception {
        ensemble.lagFollowers(1, LAZIEST, 10);
        long reader = session();
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("1"))));

        assertThat(ensemble.exists(reader, "/a", e -> events.add(e.type() + " " + e.path())))
                .as("stale")
                .isNull();
        assertThat(events).containsExactly("NODE_CREATED /a");
        assertThat(ensemble.exists(reader, "/a", null)).isNotNull();
    }

    @Test
    void aNotificationMakesItsChangeVisibleToTheNotifiedClient() throws Exception {
        ensemble.lagFollowers(1, LAZIEST, 10);
        long reader = session();
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("1"))));
        ensemble.sync(reader);
        ensemble.getData(reader, "/a", e -> events.add(e.type() + " " + e.path()));
        ensemble.multi(0, List.of(Op.Create.persistent("/b", b("1"))));
        ensemble.multi(0, List.of(new Op.SetData("/a", b("2"), 0)));

        assertThat(events).containsExactly("NODE_DATA_CHANGED /a");
        assertThat(ensemble.getData(reader, "/a", null).data()).isEqualTo(b("2"));
        assertThat(ensemble.exists(reader, "/b", null))
                .as("and what came before it")
                .isNotNull();
    }

    @Test
    void aFailedWriteIsAnsweredAfterTheFollowerCaughtUp() throws Exception {
        ensemble.lagFollowers(1, LAZIEST, 10);
        long writer = session();
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("1"))));
        ensemble.multi(0, List.of(new Op.SetData("/a", b("2"), 0)));

        assertThatThrownBy(() -> ensemble.multi(writer, List.of(new Op.SetData("/a", b("x"), 0))))
                .isInstanceOf(KeeperFailure.class);
        assertThat(ensemble.getData(writer, "/a", null).stat().version())
                .as("the version that refused it")
                .isEqualTo(1);
    }

    @Test
    void withoutLagEveryReadSeesEveryCommittedWrite() throws Exception {
        long reader = session();
        ensemble.multi(0, List.of(Op.Create.persistent("/a", b("1"))));
        assertThat(ensemble.exists(reader, "/a", null)).isNotNull();
    }
}
