package io.groupkeeper.testkit.sim;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A process of a {@link KafkaWorld}: its store (client, session), its keeper, the tags of its threads, and what the
 * world's faults do to it (a crash, a cut connection, a pause, a stalled thread).
 */
final class WorldProcess {

    final String tag;
    /** The thread the simulation drives its member on (the adapter's polling thread, the container's control one). */
    final String mainTag;

    final String timerTag;
    final InMemoryCoordinationStore store;
    final GroupKeeper keeper;
    final List<String> tags = new ArrayList<>();
    boolean crashed;
    boolean paused;
    long cutUntil;
    private final KafkaWorld<?> world;

    /** {@code metrics}: the keeper's, or null for none. */
    WorldProcess(KafkaWorld<?> world, String tag, String main, String memberId, GroupMetrics metrics) {
        this(world, tag, main, () -> memberId, metrics);
    }

    /** {@code memberIds}: the keeper's member ids (a container with several workers: one per worker). */
    WorldProcess(
            KafkaWorld<?> world,
            String tag,
            String main,
            java.util.function.Supplier<String> memberIds,
            GroupMetrics metrics) {
        this.world = world;
        this.tag = tag;
        this.mainTag = tag + "/" + main;
        this.timerTag = tag + "/timer";
        tags.add(tag);
        register(mainTag);
        register(timerTag);
        world.scheduler.carry(tag); // its threads wait (the start, revocations, drains, handlers) as simulated threads
        this.store = InMemoryCoordinationStore.builder(world.zk)
                .sessionTimeout(KafkaWorld.SESSION_TIMEOUT)
                .eventExecutor(world.scheduler.eventExecutor(tag))
                .build();
        ScheduledExecutorService internal = world.scheduler.executor(tag);
        GroupKeeper.Builder keeper =
                GroupKeeper.builder().store(store).clock(world.zk.clock()).executors(internal, internal);
        if (metrics != null) {
            keeper.metrics(metrics);
        }
        this.keeper = keeper.memberIds(memberIds).build().start();
    }

    /**
     * The process's Kafka clients: its timer thread, and its store's connection for the doubt check, whose
     * violations go to {@code violations} (not a crashed process's: its threads unwind, running what a real one's
     * would not).
     */
    SimKafkaClients clients(List<String> violations) {
        return new SimKafkaClients(world.kafka, world.scheduler, world.clock, timerTag, store::isConnected, v -> {
            if (!crashed) {
                violations.add(v);
            }
        });
    }

    /** A thread of the process (frozen at once if the process is paused or crashed); returns its tag. */
    String register(String thread) {
        world.scheduler.belongs(thread, this.tag);
        tags.add(thread);
        if (paused || crashed) {
            world.scheduler.freeze(thread);
        }
        return thread;
    }

    /** The process dies: its threads stop where they are, its connection with them. */
    void crash() {
        crashed = true;
        tags.forEach(world.scheduler::freeze);
        store.disconnect();
        tags.forEach(world.scheduler::kill);
    }

    /** Its connection is cut for {@code millis} (at least). */
    void cut(long millis) {
        store.disconnect();
        cutUntil = Math.max(cutUntil, world.clock.millis() + millis);
        world.sim.schedule(this::reconnect, millis, TimeUnit.MILLISECONDS);
    }

    /** The whole process stops for {@code millis} (a GC pause), its connection with it. */
    void pause(long millis) {
        tags.forEach(world.scheduler::freeze);
        paused = true;
        store.disconnect();
        world.sim.schedule(this::resume, millis, TimeUnit.MILLISECONDS);
    }

    /** One of its threads is slow for {@code millis}. */
    void stall(String thread, long millis) {
        world.scheduler.freeze(thread);
        world.sim.schedule(
                () -> {
                    if (!paused && !crashed) {
                        world.scheduler.unfreeze(thread);
                    }
                },
                millis,
                TimeUnit.MILLISECONDS);
    }

    void reconnect() {
        if (!crashed && !store.isConnected() && world.clock.millis() >= cutUntil && !paused) {
            store.reconnect();
        }
    }

    void resume() {
        if (!crashed) {
            paused = false;
            tags.forEach(world.scheduler::unfreeze);
            reconnect();
        }
    }
}
