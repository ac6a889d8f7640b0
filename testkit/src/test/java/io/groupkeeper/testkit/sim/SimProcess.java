package io.groupkeeper.testkit.sim;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One simulated process: its store (client, session) and the keeper that several members may share, as the Spring
 * starter and a listener container with concurrency share one. A member that leaves closes only itself: the keeper and
 * its session live on until the run ends (or the process crashes), so whatever a close leaves behind stays visible.
 * Process-wide faults (crash, pause, cut, expiry) strike every member of it at once.
 */
final class SimProcess {

    /**
     * Whether a process's connection events run on a lane of their own (Curator's state thread), interleaved by the
     * scheduler with its watch notifications; {@code -Dgroupkeeper.simulation.connectionLane=false}: one ordered lane.
     */
    static final boolean CONNECTION_LANE =
            Boolean.parseBoolean(System.getProperty("groupkeeper.simulation.connectionLane", "true"));

    final String tag;
    final InMemoryCoordinationStore store;
    private final GroupKeeper keeper;
    final List<SimMember> members = new ArrayList<>();
    boolean crashed;
    /** When the cuts of this process's connection end (a second cut may outlast the first). */
    long cutUntil;
    /** Whether a silent cut holds the process's requests and is not noticed yet (its other threads run on). */
    boolean silentCut;
    /**
     * When the process last could not hear of a loss before others could act on it (-1: never): a pause began, or the
     * servers expired its session while it was connected (its client hears of that when everyone else does). User code
     * of such a process is a zombie until told.
     */
    long lastUnwarnedAt = -1;
    /**
     * How many times this process's threads were let run again after being frozen (a pause's end): each resumption
     * may run an overdue poll before the news its lanes hold, so a zombie's bound counts from the last one.
     */
    int resumptions;
    /** Whether a {@code WRITE_FAILS} struck this process: plain joins then keep off its keeper. */
    boolean writesFailed;

    private String nextMemberId;

    /** {@code instrument}: what the store's requests go through (the checker's {@link SimChecker#claimReads}). */
    SimProcess(
            String tag,
            InMemoryZooKeeper zk,
            SimScheduler scheduler,
            Duration sessionTimeout,
            java.util.function.UnaryOperator<io.groupkeeper.zkprotocol.ZkPort> instrument) {
        this.tag = tag;
        this.store = InMemoryCoordinationStore.builder(zk)
                .sessionTimeout(sessionTimeout)
                .eventExecutor(scheduler.eventExecutor(tag))
                .connectionLane(CONNECTION_LANE)
                .instrument(instrument)
                .build();
        ScheduledExecutorService internal = scheduler.executor(tag);
        this.keeper = GroupKeeper.builder()
                .store(store)
                .clock(zk.clock())
                .executors(internal, internal)
                .memberIds(() -> nextMemberId)
                .build()
                .start();
    }

    /** A member of this keeper; {@code instanceId}: a static member (its id is the instance id). */
    GroupMember member(String id, boolean instanceId, String group, String topic, RebalanceListener listener) {
        nextMemberId = id;
        GroupKeeper.MemberBuilder b =
                keeper.member(group).topics(topic).host("sim").listener(listener);
        if (instanceId) {
            b.instanceId(id).staticGracePeriod(Duration.ZERO);
        }
        return b.build();
    }

    boolean alive() {
        return !crashed;
    }

    List<SimMember> liveMembers() {
        return members.stream().filter(SimMember::alive).filter(m -> !m.leaving).toList();
    }

    long sessionId() {
        return store.sessionId();
    }
}
