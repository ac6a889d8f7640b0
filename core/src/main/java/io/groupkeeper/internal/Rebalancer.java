package io.groupkeeper.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.assignor.Assignment;
import io.groupkeeper.assignor.AssignmentInput;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.assignor.PartitionRacks;
import io.groupkeeper.spi.internal.AssignmentSnapshot;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.LeaderElection;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.MembersSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elected leader's work: watch members and topic metadata, compute the target with the group's assignor, and
 * publish a new generation when it differs. Runs on its own lane. Events that arrive while a computation runs or
 * waits out the settle delay coalesce into one more computation, which always reads the latest state, so a burst
 * of joins yields few generations and a lone joiner is not delayed (with the default settle delay of 0).
 *
 * <p>Static members (with an instance id) that disappear keep their targets for the static grace period; if they
 * return in time, nothing moves. A new leader simply reads the published assignment and carries on (I6).
 */
final class Rebalancer {

    private static final Logger LOG = LoggerFactory.getLogger(Rebalancer.class);

    private final MemberConfig config;
    private final GroupStore store;
    private final Clock clock;
    private final SerialExecutor lane;
    private final ScheduledExecutorService scheduler;

    // Lane-confined.
    private LeaderElection election;
    private long epoch;
    private boolean runScheduled;
    /** This epoch's membership hook: one object, so a store that keeps hooks in a set holds one per leader. */
    private Runnable membershipHook;

    private final RetryDelays backoff;
    private final Map<String, Instant> staticMissingSince = new HashMap<>();
    private final Set<String> reportedProblems = new HashSet<>();
    /** What this leader last published (or read); trusted while it leads: a stale one makes publish fail. */
    private AssignmentSnapshot current;
    /** Partition counts, re-read only when the metadata hook fired or the subscribed topics changed. */
    private Map<String, Integer> counts;

    private SortedSet<String> countedTopics;
    private boolean metadataChanged;
    /** Replica racks, read with the counts while some member has a rack; null: to be read. */
    private PartitionRacks racks;
    /** Lane-confined: between the lane's activate and deactivate. */
    private boolean leading;
    /** False from the moment {@link #deactivate} is called, so that a run in flight knows. */
    private volatile boolean active;

    Rebalancer(
            MemberConfig config,
            GroupStore store,
            Clock clock,
            SerialExecutor lane,
            ScheduledExecutorService scheduler) {
        this.config = config;
        this.store = store;
        this.clock = clock;
        this.lane = lane;
        this.scheduler = scheduler;
        this.backoff = RetryDelays.seededBy(config.groupId(), config.memberId(), "leader");
    }

    boolean isActive() {
        return active;
    }

    void activate(LeaderElection election) {
        lane.execute(() -> {
            this.election = election;
            leading = true;
            active = true;
            epoch++;
            membershipHook = changeHook(epoch);
            staticMissingSince.clear();
            runScheduled = false;
            current = null;
            counts = null;
            LOG.info("this member is the leader of its group");
            requestRun(Duration.ZERO, epoch);
        });
    }

    /**
     * Stops leading. Takes effect at once for a run already in flight (a close gives leadership up and leaves the
     * election right after, while a run may be publishing): that run's failure is then the expected end of it, not a
     * problem to retry or warn about.
     */
    void deactivate() {
        active = false;
        lane.execute(() -> {
            if (leading) {
                LOG.info("this member is no longer the leader");
            }
            leading = false;
            active = false;
            epoch++;
        });
    }

    private Runnable changeHook(long forEpoch) {
        return () -> lane.execute(() -> requestRun(config.settleDelay(), forEpoch));
    }

    private Runnable metadataHook(long forEpoch) {
        return () -> lane.execute(() -> {
            if (forEpoch == epoch) {
                metadataChanged = true;
            }
            requestRun(config.settleDelay(), forEpoch);
        });
    }

    private void requestRun(Duration delay, long forEpoch) {
        if (!active || forEpoch != epoch || runScheduled) {
            return;
        }
        runScheduled = true;
        if (delay.isZero()) {
            lane.execute(() -> run(forEpoch));
        } else {
            scheduler.schedule(() -> lane.execute(() -> run(forEpoch)), delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void run(long forEpoch) {
        if (forEpoch != epoch) {
            return;
        }
        runScheduled = false;
        if (!active) {
            return;
        }
        try {
            rebalanceOnce(forEpoch);
            backoff.succeeded();
        } catch (RuntimeException e) {
            current = null; // re-read everything on the retry
            counts = null;
            if (!active) {
                LOG.debug("rebalance stopped: leadership given up while it ran ({})", e.toString());
                return;
            }
            long delay = backoff.failed();
            LOG.warn("rebalance failed, retrying in {} ms: {}", delay, e.toString());
            scheduler.schedule(
                    () -> lane.execute(() -> requestRun(Duration.ZERO, forEpoch)), delay, TimeUnit.MILLISECONDS);
        }
    }

    private void rebalanceOnce(long forEpoch) {
        long started = System.nanoTime();
        MembersSnapshot live = store.readMembers(membershipHook);
        for (String problem : live.problems()) {
            if (reportedProblems.add(problem)) {
                LOG.error("ignoring unreadable member node: {}", problem);
            }
        }
        AssignmentSnapshot published = current != null ? current : store.readAssignment();

        SortedMap<String, MemberSubscription> members = new TreeMap<>();
        for (MemberInfo m : live.members().values()) {
            members.put(m.memberId(), new MemberSubscription(m.memberId(), m.topics(), m.instanceId(), m.rack()));
        }
        Optional<Duration> nextGraceExpiry = keepAbsentStaticMembers(published, members);

        SortedSet<String> topics = new TreeSet<>();
        members.values().forEach(s -> topics.addAll(s.topics()));
        if (counts == null || metadataChanged || !topics.equals(countedTopics)) {
            metadataChanged = false;
            countedTopics = topics;
            counts = config.metadata().partitionCounts(topics, metadataHook(forEpoch));
            racks = null;
        }
        PartitionRacks replicaRacks = PartitionRacks.empty();
        if (members.values().stream().anyMatch(s -> s.rack().isPresent())) {
            if (racks == null) {
                racks = config.metadata().partitionRacks(topics);
            }
            replicaRacks = racks;
        }

        long read = System.nanoTime();
        Assignment next =
                config.assignor().assign(AssignmentInput.of(members, counts, published.targets(), replicaRacks));
        long computed = System.nanoTime();

        Map<String, SortedSet<TopicPartition>> changed = new TreeMap<>();
        for (String member : members.keySet()) {
            SortedSet<TopicPartition> wanted = next.partitionsOf(member);
            boolean hadTarget = published.targets().byMember().containsKey(member);
            if (!hadTarget
                    || published.damaged().contains(member)
                    || !wanted.equals(published.targets().partitionsOf(member))) {
                changed.put(member, wanted);
            }
        }
        Set<String> removed = new TreeSet<>(published.targets().byMember().keySet());
        removed.removeAll(members.keySet());
        SortedSet<String> staticMembers = new TreeSet<>();
        members.values().stream().filter(s -> s.instanceId().isPresent()).forEach(s -> staticMembers.add(s.memberId()));

        current = published;
        if (!changed.isEmpty() || !removed.isEmpty()) {
            long generation = published.generation() + 1;
            current = null; // unknown until the publish succeeds
            long version = election.publish(published.version(), generation, changed, removed, staticMembers);
            current = new AssignmentSnapshot(generation, Optional.of(config.memberId()), next, staticMembers, version);
            config.metrics()
                    .generationPublished(
                            config.groupId(),
                            generation,
                            changed.size(),
                            published.targets().movesTo(next));
            LOG.info(
                    "published generation {} for {} members ({} targets changed, {} removed, "
                            + "{} partitions moved) in {} ms (read {} ms, assign {} ms, write {} ms)",
                    generation,
                    members.size(),
                    changed.size(),
                    removed.size(),
                    published.targets().movesTo(next),
                    millis(System.nanoTime() - started),
                    millis(read - started),
                    millis(computed - read),
                    millis(System.nanoTime() - computed));
        }
        nextGraceExpiry.ifPresent(d -> scheduler.schedule(
                () -> lane.execute(() -> requestRun(Duration.ZERO, forEpoch)),
                d.toMillis() + 1,
                TimeUnit.MILLISECONDS));
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    /**
     * Keeps static members that left less than the grace period ago in the assignment input, subscribed to the
     * topics of their last target, so their partitions wait for them. Returns when the next grace ends.
     */
    private Optional<Duration> keepAbsentStaticMembers(
            AssignmentSnapshot published, SortedMap<String, MemberSubscription> members) {
        Instant now = clock.instant();
        staticMissingSince.keySet().removeIf(members::containsKey);
        Duration soonest = null;
        for (String id : published.staticMembers()) {
            if (members.containsKey(id) || !published.targets().byMember().containsKey(id)) {
                continue;
            }
            Instant since = staticMissingSince.computeIfAbsent(id, k -> now);
            Duration left = config.staticGracePeriod().minus(Duration.between(since, now));
            if (left.isNegative() || left.isZero()) {
                LOG.info(
                        "static member {} did not return within {}; reassigning its partitions",
                        id,
                        config.staticGracePeriod());
                continue;
            }
            SortedSet<String> topics = new TreeSet<>();
            published.targets().partitionsOf(id).forEach(tp -> topics.add(tp.topic()));
            members.put(id, new MemberSubscription(id, topics, Optional.of(id)));
            soonest = soonest == null || left.compareTo(soonest) < 0 ? left : soonest;
        }
        return Optional.ofNullable(soonest);
    }
}
