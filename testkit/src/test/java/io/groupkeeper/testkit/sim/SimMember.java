package io.groupkeeper.testkit.sim;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * One simulated member of a {@link SimProcess} (which it may share with others), and the user code a service would run
 * on it — a polling loop that processes the records of its partitions and commits every few polls, final offsets handed
 * over on revocation, external edits adopted through {@code refresh}. Every action reports to the {@link SimChecker}.
 */
final class SimMember implements RebalanceListener {

    static final long POLL_MS = 200;
    static final int COMMIT_EVERY_POLLS = 3;
    static final int MAX_RECORDS_PER_POLL = 40;

    /** A partition this member's user code works on: where it is, and under which session it was assigned. */
    static final class Processing {
        long position;
        final long session;
        int seenEdits;
        /**
         * When user code was given it, and how many records it processed after its claim's session ended since its
         * process last resumed ({@link SimProcess#resumptions} then: {@code zombieResumption}).
         */
        final long since;

        long zombieRecords;
        int zombieResumption = -1;

        Processing(long position, long session, int seenEdits, long since) {
            this.position = position;
            this.session = session;
            this.seenEdits = seenEdits;
            this.since = since;
        }
    }

    final String id;
    final SimProcess proc;
    final String appTag;
    private final SimScheduler scheduler;
    private final SimChecker checker;
    private final SimLog log;
    private final GroupMember member;
    private final java.util.concurrent.ScheduledExecutorService app;
    final SortedMap<TopicPartition, Processing> processing = new TreeMap<>();
    private final SortedSet<TopicPartition> toRefresh = new TreeSet<>();
    private int polls;
    /** The adapter's offset mirror, driven as the adapter drives it ({@link SimMirror}); null: no mirror. */
    private final SimMirror mirror;

    private final StoreCommits commits;
    final String mirrorTag;
    boolean left;
    boolean leaving;

    SimMember(
            String id,
            int incarnation,
            boolean instanceId,
            SimProcess proc,
            SimScheduler scheduler,
            SimChecker checker,
            SimLog log,
            String group,
            String topic,
            SimMirror.Kafka kafka,
            StoreCommits commits) {
        this.id = id;
        this.proc = proc;
        this.appTag = id + "/app" + incarnation;
        this.scheduler = scheduler;
        this.checker = checker;
        this.log = log;
        this.app = scheduler.executor(appTag);
        scheduler.belongs(appTag, proc.tag);
        this.mirrorTag = id + "/mirror" + incarnation;
        scheduler.belongs(mirrorTag, proc.tag);
        this.mirror = kafka == null ? null : kafka.mirror(id, scheduler.executor(mirrorTag));
        this.commits = commits;
        this.member = proc.member(id, instanceId, group, topic, this);
        proc.members.add(this);
    }

    /**
     * Starts the member. A failed start is final for this member, as it is for what ships: {@code
     * CoordinatedConsumer.start()} rethrows it, a listener container's {@code start()} rethrows it (state FAILED, no
     * restart), the Spring starter fails the context. Whatever runs the process (an orchestrator restarting it) starts a
     * new one: {@code failed} (the simulation's heal, once the faults are over) is told.
     */
    void start(Runnable failed) {
        member.startAsync().whenComplete((ok, e) -> {
            if (e != null) { // start() throws to its caller (the store failed during the join): this member gives up
                left = true;
                member.closeAsync();
                log.event(id + " failed to start: " + e);
                failed.run();
            }
        });
        app.schedule(this::poll, POLL_MS, TimeUnit.MILLISECONDS);
    }

    /** The tags of this member's threads in its process: its user code's, its offset mirror's. */
    java.util.List<String> threads() {
        return java.util.List.of(appTag, mirrorTag);
    }

    boolean alive() {
        return !proc.crashed && !left;
    }

    boolean crashed() {
        return proc.crashed;
    }

    boolean isLeader() {
        return member.isLeader();
    }

    SortedSet<TopicPartition> assignment() {
        return member.assignment();
    }

    /** User code stops polling and closes this member (on its own thread: not before a stall or pause ends). */
    void leave() {
        leaving = true;
        app.execute(this::close);
    }

    /** The member closes at once, on the calling thread (a fault that must strike in the middle of something). */
    void close() {
        leaving = true;
        member.closeAsync().whenComplete((ok, e) -> {
            left = true;
            log.event(id + " left");
        });
    }

    // ------------------------------------------------------------------ user code

    private void poll() {
        if (crashed() || left || leaving) {
            return;
        }
        polls++;
        try {
            pollOnce();
        } catch (io.groupkeeper.spi.StoreException e) {
            // A commit or refresh that met a lost connection (its outcome may be unknown): the next poll goes on.
            log.event(id + " store failure: " + e.getMessage());
        }
        app.schedule(this::poll, POLL_MS, TimeUnit.MILLISECONDS);
    }

    private void pollOnce() {
        if (!toRefresh.isEmpty()) {
            SortedSet<TopicPartition> ask = new TreeSet<>(toRefresh);
            ask.retainAll(processing.keySet());
            toRefresh.clear();
            if (!ask.isEmpty()) {
                Map<TopicPartition, Processing> asked = sentWith(ask);
                apply(member.refresh(ask), Map.of(), asked);
            }
        }
        processing.forEach(this::finishBatch);
        if (polls % COMMIT_EVERY_POLLS == 0 && !processing.isEmpty()) {
            Map<TopicPartition, Long> offsets = new TreeMap<>();
            processing.forEach((tp, p) -> {
                offsets.put(tp, p.position);
                checker.writing(this, tp, p.seenEdits);
            });
            commit(offsets);
        }
    }

    /** A store commit, mirrored as the adapter's {@code PositionCommitter} does: marked before, offered after. */
    private void commit(Map<TopicPartition, Long> offsets) {
        if (mirror != null) { // owed: committed while their mirror producer was not ready (they are all here anyway)
            mirror.owed().forEach(tp -> {
                Processing p = processing.get(tp);
                if (p != null && !offsets.containsKey(tp)) {
                    offsets.put(tp, p.position);
                    checker.writing(this, tp, p.seenEdits);
                }
            });
        }
        long mark = mirror == null ? 0 : mirror.mark();
        Map<TopicPartition, Processing> sent = sentWith(offsets.keySet());
        CommitResult r = member.commit(offsets);
        apply(r, offsets, sent);
        if (mirror != null) {
            Map<TopicPartition, Long> committed = new TreeMap<>();
            r.statuses().forEach((tp, status) -> {
                if (status == CommitResult.Status.COMMITTED && offsets.containsKey(tp)) {
                    committed.put(tp, offsets.get(tp));
                }
            });
            mirror(committed, mark);
        }
    }

    /** Offers to the mirror what the store committed, each offset tagged with the store commit it came from. */
    private void mirror(Map<TopicPartition, Long> committed, long mark) {
        committed.forEach((tp, o) -> commits.committed(this, tp, o));
        mirror.offer(committed, mark);
    }

    /** Processes one poll's worth of {@code tp}'s records. */
    private void finishBatch(TopicPartition tp, Processing p) {
        long end = Math.min(checker.logEnd(tp), p.position + MAX_RECORDS_PER_POLL);
        for (long o = p.position; o < end; o++) {
            checker.processed(this, tp, o, p);
        }
        p.position = Math.max(p.position, end);
    }

    /** What user code worked on when it sent a commit or refresh of {@code partitions}: the answer is about those. */
    private Map<TopicPartition, Processing> sentWith(java.util.Collection<TopicPartition> partitions) {
        Map<TopicPartition, Processing> sent = new TreeMap<>();
        partitions.forEach(tp -> {
            Processing p = processing.get(tp);
            if (p != null) {
                sent.put(tp, p);
            }
        });
        return sent;
    }

    /**
     * Applies a commit's or refresh's answer to the partitions as they were when it was sent ({@code sent}). This user
     * code hears its callbacks on the member's callback lane while its polling thread may be in a commit; the adapter
     * serves them on its polling thread, so an answer there always comes before any callback that followed it (seed
     * 63228 of the unkindest schedules: a commit hanging in a silent cut answered NOT_OWNED for the claim it was sent
     * under after user code had heard that partition lost and assigned again, and dropped the new assignment's work).
     */
    private void apply(CommitResult r, Map<TopicPartition, Long> offsets, Map<TopicPartition, Processing> sent) {
        r.statuses().forEach((tp, status) -> {
            Processing p = sent.get(tp);
            Processing now = processing.get(tp);
            boolean current = p != null && now == p;
            if (p != null
                    && now != null
                    && now != p
                    && (status == CommitResult.Status.NOT_OWNED || status == CommitResult.Status.ADOPTED)) {
                log.event(id + " ignores " + status + " of " + tp + ": about the claim it was sent under, assigned "
                        + "again since");
            }
            switch (status) {
                case COMMITTED -> checker.committed(this, tp, offsets.get(tp), processing.get(tp));
                case ADOPTED -> {
                    if (current) {
                        OptionalLong at = r.adoptedOffsets().get(tp);
                        p.position = at != null && at.isPresent() ? at.getAsLong() : checker.logEnd(tp);
                        p.seenEdits = checker.edits(tp);
                        boolean fromNothing = at == null || at.isEmpty();
                        checker.adopted(this, tp, p.position, fromNothing);
                        if (fromNothing) { // an operator deleted the offset: the adapter's poll loop resolves the
                            // start again and stores it at once (resolveStarts, then storeStarts), as after a claim
                            app.execute(() -> storeStarts(new TreeSet<>(Set.of(tp))));
                        }
                    }
                }
                case NOT_OWNED -> {
                    if (current) {
                        processing.remove(tp);
                    }
                }
                default -> {}
            }
        });
    }

    // ------------------------------------------------------------------ listener

    @Override
    public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> partitions) {
        SortedSet<TopicPartition> fresh = new TreeSet<>();
        partitions.forEach((tp, offset) -> {
            long start = offset.isPresent() ? offset.getAsLong() : checker.logEnd(tp); // start position: latest
            processing.put(
                    tp,
                    new Processing(
                            start,
                            checker.claimSession(this, tp),
                            checker.editsSeenAtStart(this, tp, offset.isEmpty()),
                            scheduler.now().toEpochMilli()));
            checker.started(this, tp, start, offset.isEmpty());
            if (offset.isEmpty()) {
                fresh.add(tp);
            }
        });
        if (mirror != null) { // the adapter's LaneEvents: fence the former owners' mirror producers
            mirror.gained(partitions.keySet());
        }
        log.event(id + " assigned " + partitions.keySet());
        if (!fresh.isEmpty()) { // as the adapter does on its polling thread right after the listener
            app.execute(() -> storeStarts(fresh));
        }
    }

    /**
     * Stores at once the start position of partitions that had no stored offset (the adapter's
     * {@code PositionCommitter.storeStarts}): an heir of such a partition then repeats records rather than skipping.
     */
    private void storeStarts(SortedSet<TopicPartition> fresh) {
        if (crashed() || left || leaving) {
            return;
        }
        Map<TopicPartition, Long> offsets = new TreeMap<>();
        fresh.forEach(tp -> {
            Processing p = processing.get(tp);
            if (p != null) {
                offsets.put(tp, p.position);
                checker.writing(this, tp, p.seenEdits);
            }
        });
        if (offsets.isEmpty()) {
            return;
        }
        try {
            commit(offsets);
        } catch (io.groupkeeper.spi.StoreException e) {
            log.event(id + " store failure: " + e.getMessage()); // the next periodic commit stores it
        }
    }

    @Override
    public void onPartitionsRevoked(SortedSet<TopicPartition> partitions) {
        Map<TopicPartition, Long> finals = new TreeMap<>();
        Map<TopicPartition, Integer> seen = new TreeMap<>();
        Map<TopicPartition, Long> sessions = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            Processing p = processing.remove(tp);
            if (p != null) {
                finals.put(tp, p.position);
                seen.put(tp, p.seenEdits);
                sessions.put(tp, p.session);
                checker.writing(this, tp, p.seenEdits);
            }
        }
        long mark = mirror == null ? 0 : mirror.mark();
        SortedSet<TopicPartition> taken;
        try {
            taken = member.commitOnRelease(finals, Map.of());
            if (mirror != null) {
                Map<TopicPartition, Long> handed = new TreeMap<>(finals);
                handed.keySet().retainAll(taken);
                handed.forEach((tp, o) -> commits.handedOver(this, tp, o));
                mirror.offer(handed, mark); // as the adapter does: before the release that stores them has landed
            }
        } finally {
            if (mirror != null) {
                mirror.released(partitions);
            }
        }
        taken.forEach(tp -> checker.handedOver(this, tp, finals.get(tp), seen.get(tp), sessions.get(tp)));
        log.event(id + " revoked " + partitions);
    }

    @Override
    public void onPartitionsLost(SortedSet<TopicPartition> partitions) {
        processing.keySet().removeAll(partitions);
        if (mirror != null) {
            mirror.lost(partitions);
        }
        log.event(id + " lost " + partitions);
    }

    @Override
    public void onOffsetsChanged(SortedSet<TopicPartition> partitions) {
        toRefresh.addAll(partitions);
    }

    long sessionId() {
        return proc.sessionId();
    }

    long fencingToken(TopicPartition tp) {
        return member.fencingToken(tp).orElse(-1);
    }
}
