package io.groupkeeper.zookeeper;

import io.groupkeeper.fixtures.ManualClock;
import java.time.Instant;

/** A clock tests move by hand: the shared {@link ManualClock}, under the name zk-store's tests use. */
final class MutableClock extends ManualClock {

    MutableClock(Instant start) {
        super(start);
    }
}
