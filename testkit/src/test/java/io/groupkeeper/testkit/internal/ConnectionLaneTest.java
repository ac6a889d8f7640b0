package io.groupkeeper.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Connection events on a lane of their own, as Curator delivers connection states on its own thread: a listener may
 * hear a disconnect before a watch notification queued earlier runs. With one lane, everything runs in queue order.
 */
class ConnectionLaneTest {

    private final Ensemble ensemble = new Ensemble(new ManualClock());
    /** The executor's tasks, run only when the test says which. */
    private final List<Runnable> tasks = new ArrayList<>();

    private final List<String> heard = new CopyOnWriteArrayList<>();

    private MemClient client(boolean ownLane) {
        EventLane lane = new EventLane(tasks::add);
        MemClient c = new MemClient(
                ensemble, "groupkeeper", Duration.ofSeconds(6), lane, ownLane ? new EventLane(tasks::add) : lane, 1000);
        c.addListener(e -> heard.add(e.name()));
        c.start();
        drain();
        heard.clear();
        return c;
    }

    private void drain() {
        while (!tasks.isEmpty()) {
            tasks.remove(0).run();
        }
    }

    /** A watch notification is queued (the node is created), then the connection drops. */
    private void notificationThenDisconnect(MemClient c) throws Exception {
        assertThat(c.read("/x", () -> heard.add("watch"))).isEmpty();
        ensemble.multi(0, List.of(Op.Create.persistent("/groupkeeper/x", null)));
        c.disconnect();
    }

    @Test
    void aConnectionEventMayOvertakeAWatchNotificationQueuedBeforeIt() throws Exception {
        MemClient c = client(true);
        notificationThenDisconnect(c);

        assertThat(tasks).as("each lane hands over its head").hasSize(2);
        tasks.remove(1).run(); // Curator's state thread runs first
        drain();
        assertThat(heard).containsExactly("SUSPENDED", "watch");
    }

    @Test
    void onOneLaneTheWatchNotificationQueuedFirstRunsFirst() throws Exception {
        MemClient c = client(false);
        notificationThenDisconnect(c);

        assertThat(tasks).as("one lane hands over one event at a time").hasSize(1);
        drain();
        assertThat(heard).containsExactly("watch", "SUSPENDED");
    }
}
