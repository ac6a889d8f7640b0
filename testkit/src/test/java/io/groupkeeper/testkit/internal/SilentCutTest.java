package io.groupkeeper.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A silent cut at the server: the connection stays open, so a persistent watch's notification waits in it and arrives
 * if the network returns before the client notices; once it noticed (its connection closed), it is gone.
 */
class SilentCutTest {

    private final Ensemble ensemble = new Ensemble(new ManualClock());
    private final List<String> events = new ArrayList<>();
    private final long session = ensemble.openSession(Duration.ofSeconds(6), new EventLane(Runnable::run), id -> {});

    private void watchAndCreateWhileCut() throws Exception {
        ensemble.addPersistentWatch(session, "/a", e -> events.add(e.type() + " " + e.path()), false);
        ensemble.cutSilently(session);
        ensemble.multi(0, List.of(Op.Create.persistent("/a", null)));
        assertThat(events).as("nothing gets through the cut").isEmpty();
    }

    @Test
    void aPersistentNotificationWaitsInTheConnectionUntilTheNetworkReturns() throws Exception {
        watchAndCreateWhileCut();
        assertThat(ensemble.reconnect(session)).isTrue();
        ensemble.releaseHeld(session);
        assertThat(events).containsExactly("NODE_CREATED /a");
    }

    @Test
    void aPersistentNotificationIsGoneOnceTheClientNoticedTheCut() throws Exception {
        watchAndCreateWhileCut();
        ensemble.disconnect(session); // noticed: the client closes the connection
        assertThat(ensemble.reconnect(session)).isTrue();
        ensemble.releaseHeld(session);
        assertThat(events).isEmpty();
    }
}
