package io.groupkeeper.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Everything a chaos run observed, appended concurrently by consumers, the fault injector and the offset sampler,
 * then judged by {@link ChaosChecker}. Times are wall-clock milliseconds, so events from several JVMs on one machine
 * can be compared.
 */
public final class ChaosLedger {

    /**
     * One record handed to user code, processed from {@code atMillis} to {@code doneMillis} (a stalled record has a
     * long interval); {@code key} is the record's key (null: none), for the per-key order check ({@link KeyOrderCheck});
     * {@code token} is the fencing token of the claim it was processed under (the one its sink write carried;
     * {@link SinkOp#NO_TOKEN}: not known), so that the checks judge each claim of a member apart.
     */
    public record Processed(
            String group,
            int partition,
            long offset,
            String member,
            long atMillis,
            long doneMillis,
            String key,
            long token) {

        /** A record whose claim was not recorded. */
        public Processed(
                String group, int partition, long offset, String member, long atMillis, long doneMillis, String key) {
            this(group, partition, offset, member, atMillis, doneMillis, key, SinkOp.NO_TOKEN);
        }

        /** A record without a key (or whose key was not recorded). */
        public Processed(String group, int partition, long offset, String member, long atMillis, long doneMillis) {
            this(group, partition, offset, member, atMillis, doneMillis, null);
        }

        /** A record processed in an instant. */
        public Processed(String group, int partition, long offset, String member, long atMillis) {
            this(group, partition, offset, member, atMillis, atMillis);
        }
    }

    /** How an ownership interval ended. */
    public enum End {
        /** Revoked (a rebalance or a graceful close): the final position was committed before the release. */
        REVOKED,
        /** Reported lost (connection suspended, session expired, commit fenced): nothing committed. */
        LOST,
        /** The member crashed: its processing stopped at this instant, nothing committed. */
        CRASHED
    }

    /**
     * A member owned a partition from {@code fromMillis} (told by {@code onPartitionsAssigned}) until {@code toMillis},
     * the last moment its user code could process it: the entry into the {@code poll()}/{@code close()} call that
     * followed the last batch holding records of it (a batch counts as processed when {@code poll()} is called again,
     * and no poll() after that handed it records of the partition before {@code onPartitionsRevoked}/
     * {@code onPartitionsLost} told it), or the crash. {@code notifiedMillis} is when that callback came
     * ({@code >= toMillis}); a notice that comes after the next owner started is late (the polling thread was held up)
     * — reported, not an overlap of processing. {@code token} is the fencing token of the claim the interval is of
     * ({@link SinkOp#NO_TOKEN}: not known, or the interval spans several claims): a record processed under another
     * known token is not of this interval.
     */
    public record Ownership(
            String group,
            int partition,
            String member,
            long fromMillis,
            long toMillis,
            End end,
            long notifiedMillis,
            long token) {

        /** An interval whose claim was not recorded. */
        public Ownership(
                String group,
                int partition,
                String member,
                long fromMillis,
                long toMillis,
                End end,
                long notifiedMillis) {
            this(group, partition, member, fromMillis, toMillis, end, notifiedMillis, SinkOp.NO_TOKEN);
        }

        /** Whether a record processed under {@code recordToken} may be of this interval's claim. */
        public boolean sameClaim(long recordToken) {
            return token == SinkOp.NO_TOKEN || recordToken == SinkOp.NO_TOKEN || token == recordToken;
        }

        /** An interval that ended by a revocation, told at once. */
        public Ownership(String group, int partition, String member, long fromMillis, long toMillis) {
            this(group, partition, member, fromMillis, toMillis, End.REVOKED);
        }

        /** An interval whose end was told at once. */
        public Ownership(String group, int partition, String member, long fromMillis, long toMillis, End end) {
            this(group, partition, member, fromMillis, toMillis, end, toMillis);
        }
    }

    /**
     * An injected fault. {@code crash} faults (no graceful close) widen the duplicate bound by the member's records in
     * the uncommitted window around them; {@code exposed} are the members that may lose partitions without a commit
     * because of it (the crashed or expired member; for a ZooKeeper server kill, the members connected to it, or all
     * of them when it led the ensemble or the others are no quorum without it).
     */
    public record Fault(String kind, String member, long atMillis, boolean crash, Set<String> exposed) {

        /** The kind of a zombie batch ({@link ZombieFault}): a stall and a cut-off of one member at once. */
        public static final String ZOMBIE = "zombie(stall+cut-off)";

        public Fault(String kind, String member, long atMillis, boolean crash) {
            this(kind, member, atMillis, crash, crash ? Set.of(member) : Set.of());
        }

        public Fault {
            exposed = Set.copyOf(exposed);
        }

        /** Whether this is a zombie batch: its member's batch in hand is finished after its successor started. */
        public boolean zombie() {
            return ZOMBIE.equals(kind);
        }
    }

    /**
     * An admin reset of a group's partition to {@code offset}, written between {@code startedMillis} (the admin
     * call's start) and {@code atMillis} (its end): replays after it are expected, not duplicates, and the committed
     * offset may move back to it. The reset clears the done set too (an operator's reset wins, I4), so its owner
     * replays every offset from {@code offset} up to the highest it had processed, done or started, in any order of
     * keys. {@code from} is the committed offset it replaced: only an adoption sends the owner below it, so a repeat in
     * {@code [offset, from)} confirms the adoption ({@link Long#MAX_VALUE}, not known: the target's own processing).
     */
    public record Reset(String group, int partition, long offset, long atMillis, long startedMillis, long from) {

        public Reset(String group, int partition, long offset, long atMillis, long startedMillis) {
            this(group, partition, offset, atMillis, startedMillis, Long.MAX_VALUE);
        }

        public Reset(String group, int partition, long offset, long atMillis) {
            this(group, partition, offset, atMillis, atMillis);
        }
    }

    /**
     * A committed offset read from the store by one read that began at {@code readMillis} and returned at
     * {@code atMillis}: the servers answered somewhere in between (a slow round trip on a loaded machine can return
     * long after a write that followed the answer).
     */
    public record CommittedSample(String group, int partition, long offset, long atMillis, long readMillis) {

        /** A sample read in an instant. */
        public CommittedSample(String group, int partition, long offset, long atMillis) {
            this(group, partition, offset, atMillis, atMillis);
        }
    }

    /**
     * A member's own report that it stopped processing {@code partitions} partitions without a commit (its connection
     * in doubt, its session lost, a commit fenced: the member's {@code GroupMetrics.partitionsLost}). Whatever it
     * processed since its last commit may be replayed, as after a fault that hit it, though no fault was aimed at it.
     */
    public record Stop(String group, String member, long atMillis, int partitions) {}

    /** What a member asked of the run's fenced sink ({@link ChaosSink}). */
    public enum SinkAction {
        /** A new owner announced its fencing token, before it processed anything of the partition. */
        OPEN,
        /** A processed record written, stamped with the token of the claim its batch was read under. */
        WRITE
    }

    /**
     * One operation on the run's fenced sink, in the sink's own order ({@code seq}, taken under its lock, as is
     * {@code atMillis}): {@code token} is what the member carried ({@link #NO_TOKEN} if its batch was read under no
     * claim), {@code accepted} the sink's verdict, {@code current} the highest token of the partition after it.
     * {@code offset} is the record's ({@code -1} for an open).
     */
    public record SinkOp(
            String group,
            int partition,
            String member,
            SinkAction action,
            long offset,
            long token,
            boolean accepted,
            long current,
            long seq,
            long atMillis) {

        public static final long NO_TOKEN = -1;
    }

    private final List<Processed> processed = Collections.synchronizedList(new ArrayList<>());
    private final List<Ownership> ownerships = Collections.synchronizedList(new ArrayList<>());
    private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
    private final List<Reset> resets = Collections.synchronizedList(new ArrayList<>());
    private final List<CommittedSample> committed = Collections.synchronizedList(new ArrayList<>());
    private final List<SinkOp> sinkOps = Collections.synchronizedList(new ArrayList<>());
    private final List<Stop> stops = Collections.synchronizedList(new ArrayList<>());
    private final ChaosSink sink = new ChaosSink(this);

    public void processed(Processed p) {
        processed.add(p);
    }

    public void ownership(Ownership o) {
        ownerships.add(o);
    }

    public void fault(Fault f) {
        faults.add(f);
    }

    public void reset(Reset r) {
        resets.add(r);
    }

    public void committed(CommittedSample s) {
        committed.add(s);
    }

    public void sinkOp(SinkOp op) {
        sinkOps.add(op);
    }

    public void stopped(Stop s) {
        stops.add(s);
    }

    /** The run's fenced sink, shared by every in-JVM member: each records what it asked of it here. */
    public ChaosSink sink() {
        return sink;
    }

    public int processedCount() {
        return processed.size();
    }

    public List<Processed> processed() {
        synchronized (processed) {
            return List.copyOf(processed);
        }
    }

    public List<Ownership> ownerships() {
        synchronized (ownerships) {
            return List.copyOf(ownerships);
        }
    }

    public List<Fault> faults() {
        synchronized (faults) {
            return List.copyOf(faults);
        }
    }

    public List<Reset> resets() {
        synchronized (resets) {
            return List.copyOf(resets);
        }
    }

    public List<CommittedSample> committedSamples() {
        synchronized (committed) {
            return List.copyOf(committed);
        }
    }

    public List<Stop> stops() {
        synchronized (stops) {
            return List.copyOf(stops);
        }
    }

    public List<SinkOp> sinkOps() {
        synchronized (sinkOps) {
            return List.copyOf(sinkOps);
        }
    }
}
