package io.groupkeeper.testkit.sim;

import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ManualClock;
import io.groupkeeper.zkprotocol.ZkPort;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

/**
 * One simulated process for tests of hanging requests: a store on a model ensemble (its session port at hand), its
 * threads tagged "p" (the store's events and lanes) and "p/app" (user code), stepped by a seeded scheduler that runs
 * them on carriers, so that its requests can hang in a silent cut.
 */
final class OneProcess implements AutoCloseable {

    final ManualClock clock = new ManualClock();
    final InMemoryZooKeeper zk = new InMemoryZooKeeper(clock);
    final SimScheduler scheduler;
    final InMemoryCoordinationStore store;
    final ZkPort port;

    OneProcess(long seed) {
        scheduler = new SimScheduler(clock, new Random(seed), zk::expireDueSessions);
        zk.simulatedThreads(scheduler.threads());
        ZkPort[] instrumented = new ZkPort[1];
        store = InMemoryCoordinationStore.builder(zk)
                .sessionTimeout(Duration.ofSeconds(3))
                .eventExecutor(scheduler.eventExecutor("p"))
                .instrument(p -> instrumented[0] = p)
                .build();
        store.start();
        port = instrumented[0];
        scheduler.belongs("p/app", "p");
        scheduler.carry("p");
    }

    /** Steps the world for {@code millis} of simulated time. */
    void runFor(long millis) {
        Instant until = clock.instant().plusMillis(millis);
        while (scheduler.runNext(until)) {
            // step
        }
    }

    @Override
    public void close() {
        scheduler.close();
    }
}
