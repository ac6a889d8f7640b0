package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.log.internal.LogContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** A lane runs one task at a time, in order; {@code runIfIdle} lets a waiting caller be the lane when it is idle. */
class SerialExecutorTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final SerialExecutor lane = new SerialExecutor(pool, "test", new LogContext("g", "m"));

    @AfterEach
    void shutdown() {
        pool.shutdownNow();
    }

    @Test
    void everyTaskRunsInItsMembersLoggingContextAndLeavesTheThreadsAsItWas() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        lane.execute(() -> seen.add(MDC.get("group") + "/" + MDC.get("member")));
        lane.execute(() -> pool.execute(
                () -> { // a task of the shared pool outside the lane: no member's context
                    seen.add(MDC.get("group") + "/" + MDC.get("member"));
                    done.countDown();
                }));
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        MDC.put("group", "caller");
        // The lane is idle once the drain that ran the second task returns, which may be just after the pool task ran;
        // polled on this thread, since the caller's logging context is what is under test.
        Awaitility.await()
                .pollInSameThread()
                .atMost(10, TimeUnit.SECONDS)
                .until(() -> lane.runIfIdle(() -> seen.add(MDC.get("group") + "/" + MDC.get("member"))));
        assertThat(MDC.get("group")).as("the caller's context is restored").isEqualTo("caller");
        assertThat(MDC.get("member")).isNull();
        MDC.clear();

        assertThat(seen).containsExactly("g/m", "null/null", "g/m");
    }

    @Test
    void anIdleLaneRunsTheTaskOnTheCallingThreadAsTheLane() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean inLane = new AtomicBoolean();

        boolean ran = lane.runIfIdle(() -> {
            ranOn.set(Thread.currentThread());
            inLane.set(lane.inLane());
        });

        assertThat(ran).isTrue();
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(inLane).isTrue();
        assertThat(lane.inLane())
                .as("not the lane any more once the task returned")
                .isFalse();
    }

    @Test
    void aBusyLaneRunsNothingInline() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        lane.execute(() -> {
            started.countDown();
            await(release);
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean ranInline = new AtomicBoolean();

        assertThat(lane.runIfIdle(() -> ranInline.set(true))).isFalse();

        release.countDown();
        assertThat(ranInline).isFalse();
    }

    @Test
    void tasksSubmittedWhileATaskRunsInlineRunAfterItInOrder() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);

        lane.runIfIdle(() -> {
            lane.execute(() -> order.add("second"));
            lane.execute(() -> {
                order.add("third");
                done.countDown();
            });
            order.add("first"); // the queued tasks must not start before this one returns
        });

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly("first", "second", "third");
        // Idle again once the drain that ran them returns: then the next caller may run inline.
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> lane.runIfIdle(() -> {}));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
