package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A thread that hangs in a request while it holds a lock, and another thread of its process that then blocks on that
 * lock: the baton cannot account for a real block (the lock's release would wake the blocked thread in the middle of
 * another's turn), so the world is given up ({@link SimThreads.Contended}, naming the hang); a schedule run again with
 * that hang exclusive holds the process's other threads until the hanging one has its answer.
 */
class HangingWithALockTest {

    private final OneProcess process = new OneProcess(3);
    private final SimScheduler scheduler = process.scheduler;
    private final InMemoryCoordinationStore store = process.store;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<String> trace = new CopyOnWriteArrayList<>();

    @BeforeEach
    void aCommitHangsHoldingTheLock() throws Exception {
        ZkPort port = process.port;
        port.write(ZkOp.create("/x", "v0".getBytes(StandardCharsets.UTF_8)));
        store.cutSilently();
        scheduler.executor("p/app").execute(() -> {
            lock.lock();
            try {
                port.write(ZkOp.set("/x", "v1".getBytes(StandardCharsets.UTF_8), -1));
                trace.add("committed");
            } catch (ZkFailure e) {
                trace.add("commit failed " + e.code());
            } finally {
                lock.unlock();
            }
        });
        scheduler
                .executor("p")
                .schedule(
                        () -> {
                            lock.lock(); // a lane that needs the committer's lock, without a timeout
                            try {
                                trace.add("lane has the lock");
                            } finally {
                                lock.unlock();
                            }
                        },
                        10,
                        TimeUnit.MILLISECONDS);
    }

    @AfterEach
    void end() {
        process.close();
    }

    @Test
    void aThreadThatBlocksOnTheLockOfAHangingThreadGivesTheWorldUp() {
        assertThatThrownBy(() -> runFor(1_000))
                .isInstanceOfSatisfying(
                        SimThreads.Contended.class, c -> assertThat(c.hang).isZero());
        assertThat(trace).isEmpty();
    }

    @Test
    void aHangMadeExclusiveHoldsItsProcessUntilItHasItsAnswer() {
        scheduler.threads().exclusiveHangs(Set.of(0L));
        runFor(1_000);
        assertThat(trace)
                .as("the lane waits, held by the scheduler rather than by the lock")
                .isEmpty();

        scheduler.runAs("sim", store::noticeCut);
        runFor(100);

        assertThat(trace).containsExactly("commit failed CONNECTIONLOSS", "lane has the lock");
    }

    private void runFor(long millis) {
        process.runFor(millis);
    }
}
