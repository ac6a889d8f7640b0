package io.groupkeeper.testkit;

import java.time.Instant;

/**
 * A clock that moves only when a test advances it: the shared {@link io.groupkeeper.fixtures.ManualClock}, under the
 * name testkit's tests (and the contract suite's users) already import.
 */
public final class ManualClock extends io.groupkeeper.fixtures.ManualClock {

    public ManualClock() {
        super();
    }

    public ManualClock(Instant start) {
        super(start);
    }
}
