package io.groupkeeper.testkit.sim;

import io.groupkeeper.fixtures.ZkLayout;
import io.groupkeeper.kafka.container.internal.progress.OffsetProgress;
import io.groupkeeper.kafka.container.internal.progress.ProgressCodec;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.testkit.InMemoryZooKeeper;
import io.groupkeeper.testkit.ModelTransactions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@link ContainerChecker}'s checks of what the offset node hands over, told of the handler's calls and of every
 * offset node written (as {@link ContainerChecker} reads them):
 * <ul>
 *   <li><b>nothing named done runs again</b>: a record a landed write of the offset node named done (below its low-water
 *   mark, or in its done set; an operator's write: below its value) is not started again under a claim made after that
 *   write (a handler call carrying a fencing token, the claim's transaction id, above the write's), until an operator
 *   writes the node again. A crash, an expiry or a loss therefore replays only what the last landed commit did not
 *   name: what was in flight or completed since. A call under an older claim (a lost partition's record still running)
 *   is not judged;</li>
 *   <li><b>a graceful handover replays none</b>: a member's release of a partition that carries its final write (one
 *   transaction of its session writes the offset node and deletes the owner node: a revocation's or a
 *   {@code stop()}'s) names done every record the member finished (handled, or dead-lettered after an attempt) under
 *   the claim it releases, unless the drain ran out of time ({@link #drainRanOut}: what was in flight is released
 *   without it, and may finish before the release lands) or an operator wrote the node since the claim (the member let
 *   its progress go at the reset). A final write that did not land is no release: the heir repeats from the last landed
 *   commit, as at least once allows. With the check above, the heir starts none of them again;</li>
 *   <li><b>the node's size stays within its bound</b>: every done value a member writes names offsets (done or
 *   attempted) below its low-water mark + the configured max span, and is at most
 *   {@link ProgressCodec#maxEncodedLength} of that span long.</li>
 * </ul>
 * The transactional mode is not judged by the first two: Kafka's offset is the one of record there.
 */
final class HandoverChecker {

    private final InMemoryZooKeeper zk;
    private final String group;
    private final String topic;
    private final Consumer<String> violation;

    /** The container's max span, and the bound of its done values ({@link ProgressCodec#maxEncodedLength}). */
    private int maxSpan = ProgressLimits.DEFAULT.maxSpan();

    private int bound = ProgressCodec.maxEncodedLength(maxSpan);
    /** The largest done value and offset node a member wrote (bytes). */
    private long maxDone;

    private long maxNode;
    /** Graceful handovers judged (a release carrying the final write of a claim under which records finished). */
    private long judged;
    /**
     * Per partition, per offset: the transaction id of the first landed write since the operator's last write that
     * named the record done (0: none). A start under a claim whose token is above it runs a named record again.
     */
    private final Map<Integer, long[]> namedAt = new HashMap<>();
    /** Per partition: the highest low-water mark named since the operator's last write. */
    private final Map<Integer, Long> namedBelow = new HashMap<>();
    /** Per partition: the transaction id of the operator's last write of its offset node. */
    private final Map<Integer, Long> operatorAt = new HashMap<>();
    /** Per claim (its fencing token): the records finished (handled or dead-lettered) under it. */
    private final Map<Long, BitSet> finishedUnder = new HashMap<>();
    /** Per member, partition and offset ("m:p:o"): the token of its last failed attempt (a dead letter's claim). */
    private final Map<String, Long> failedUnder = new HashMap<>();
    /** Claims whose revocation or stop ran out of time draining: their releases are not graceful. */
    private final Set<Long> drainRanOut = new HashSet<>();

    HandoverChecker(InMemoryZooKeeper zk, String group, String topic, Consumer<String> violation) {
        this.zk = zk;
        this.group = group;
        this.topic = topic;
        this.violation = violation;
    }

    /** The container's configured max span (the bound of its done values follows). */
    HandoverChecker maxSpan(int span) {
        this.maxSpan = span;
        this.bound = ProgressCodec.maxEncodedLength(span);
        return this;
    }

    long maxDone() {
        return maxDone;
    }

    long maxNode() {
        return maxNode;
    }

    long judged() {
        return judged;
    }

    // ------------------------------------------------------------------ the container's drains

    /**
     * A drain of {@code partition} ran out of time (a revocation's: "still in flight ... released without them"): the
     * claim that stands now releases it without what was in flight, which may finish before the release lands.
     */
    void drainRanOut(int partition) {
        fenceToken(partition).ifPresent(drainRanOut::add);
    }

    /**
     * A {@code stop()}'s drain ran out of time in the process {@code process}: every partition one of its members
     * (its id, or its id and a worker's suffix) owns is released without what was in flight.
     */
    void drainRanOutOf(String process, int partitions) {
        for (int p = 0; p < partitions; p++) {
            Optional<String> owner = ModelTransactions.ownerMember(
                    zk, ZkLayout.owner(group, new io.groupkeeper.TopicPartition(topic, p)));
            if (owner.isPresent() && (owner.get().equals(process) || owner.get().startsWith(process + "-"))) {
                drainRanOut(p);
            }
        }
    }

    /** The token of the claim of {@code partition} that stands now: its fence node's last modification. */
    private OptionalLong fenceToken(int partition) {
        return zk.stat(ZkLayout.fence(group, new io.groupkeeper.TopicPartition(topic, partition)))
                .map(s -> OptionalLong.of(s.mzxid()))
                .orElse(OptionalLong.empty());
    }

    // ------------------------------------------------------------------ the handler's calls

    /** {@code member} starts the record at {@code offset} of {@code partition} in a call carrying {@code token}. */
    void started(String member, int partition, long offset, OptionalLong token) {
        if (token.isEmpty()) {
            return;
        }
        long[] at = namedAt.get(partition);
        if (at != null && offset < at.length && at[(int) offset] != 0 && at[(int) offset] < token.getAsLong()) {
            violation.accept("replayed: " + member + " started " + topic + "-" + partition + " at " + offset
                    + " under a claim (token " + token.getAsLong() + ") made after transaction " + at[(int) offset]
                    + " named it done, with no operator's write of the node since");
        }
    }

    /** The call of {@code member} carrying {@code token} handled the record ({@code ok}) or failed it. */
    void ended(String member, int partition, long offset, boolean ok, OptionalLong token) {
        if (token.isEmpty()) {
            return;
        }
        if (ok) {
            finishedUnder.computeIfAbsent(token.getAsLong(), t -> new BitSet()).set((int) offset);
        } else {
            failedUnder.put(member + ":" + partition + ":" + offset, token.getAsLong());
        }
    }

    /** {@code member}'s listener heard the record's dead letter: finished under the claim of its last attempt. */
    void deadLettered(String member, int partition, long offset) {
        Long token = failedUnder.remove(member + ":" + partition + ":" + offset);
        if (token != null) {
            finishedUnder.computeIfAbsent(token, t -> new BitSet()).set((int) offset);
        }
    }

    // ------------------------------------------------------------------ the offset nodes

    /**
     * An operator wrote {@code partition}'s offset node (a reset or an edit; its done set is cleared): what was named
     * done before may run again; a claim made after it starts at {@code value}, so the records below are named.
     */
    void operatorWrote(int partition, long value, long zxid) {
        operatorAt.put(partition, zxid);
        namedAt.remove(partition);
        namedBelow.remove(partition);
        named(partition, OffsetProgress.at(value), zxid);
    }

    /**
     * A member's write of {@code partition}'s offset node landed in transaction {@code zxid}: {@code progress} as a
     * reader resumes it, {@code done} its done value, {@code node} the node's size; {@code released}: the same
     * transaction deleted the partition's owner node (a release carrying the final write); {@code judged}: the handover
     * checks apply (not in the transactional mode).
     */
    void written(
            String who,
            int partition,
            OffsetProgress progress,
            Optional<String> done,
            int node,
            long zxid,
            boolean released,
            boolean judged) {
        bounded(who, partition, progress, done, node, zxid);
        if (!judged) {
            return;
        }
        named(partition, progress, zxid);
        if (released) {
            handedOver(who, partition, progress, done, zxid);
        }
    }

    /** The node's size stays within its bound: offsets within the max span, the value within its bound. */
    private void bounded(
            String who, int partition, OffsetProgress progress, Optional<String> done, int node, long zxid) {
        maxNode = Math.max(maxNode, node);
        if (done.isEmpty()) {
            return;
        }
        int length = done.get().getBytes(StandardCharsets.UTF_8).length;
        maxDone = Math.max(maxDone, length);
        long low = progress.lowWater();
        long highest = Math.max(
                progress.done().isEmpty() ? low : progress.done().last(),
                progress.attempts().isEmpty() ? low : progress.attempts().lastKey());
        if (highest - low >= maxSpan) {
            violation.accept("node size: " + who + " wrote " + topic + "-" + partition + "'s done value naming offset "
                    + highest + ", " + maxSpan + " or more above its low-water mark " + low + " (max span " + maxSpan
                    + ", transaction " + zxid + ")");
        }
        if (length > bound) {
            violation.accept("node size: " + who + " wrote " + topic + "-" + partition + "'s done value of " + length
                    + " bytes, above the bound " + bound + " for max span " + maxSpan + " (transaction " + zxid + ")");
        }
    }

    /** The records a landed write names done are not to be started again under a later claim. */
    private void named(int partition, OffsetProgress progress, long zxid) {
        long low = progress.lowWater();
        long highest = progress.done().isEmpty() ? low : progress.done().last();
        long[] at = namedAt.get(partition);
        if (at == null || at.length <= highest) {
            at = Arrays.copyOf(at == null ? new long[0] : at, (int) Math.max(64, 2 * (highest + 1)));
            namedAt.put(partition, at);
        }
        long from = namedBelow.getOrDefault(partition, 0L);
        for (long r = from; r < low; r++) {
            if (at[(int) r] == 0) {
                at[(int) r] = zxid;
            }
        }
        namedBelow.put(partition, Math.max(from, low));
        for (long d : progress.done()) {
            if (at[(int) d] == 0) {
                at[(int) d] = zxid;
            }
        }
    }

    /**
     * A graceful handover replays none: the release that carries the member's final write names done every record it
     * finished under the claim it releases (the fence node's last modification: a release does not move it). Not judged
     * when the drain ran out of time, or an operator wrote the node since the claim.
     */
    private void handedOver(String who, int partition, OffsetProgress progress, Optional<String> done, long zxid) {
        OptionalLong claim = fenceToken(partition);
        if (claim.isEmpty()) {
            return;
        }
        long token = claim.getAsLong();
        BitSet finished = finishedUnder.get(token);
        if (finished == null || drainRanOut.contains(token) || operatorAt.getOrDefault(partition, 0L) > token) {
            return;
        }
        judged++;
        for (int r = finished.nextSetBit(0); r >= 0; r = finished.nextSetBit(r + 1)) {
            if (!progress.isDone(r)) {
                violation.accept("graceful handover: " + who + " finished " + topic + "-" + partition + " record " + r
                        + " under its claim (token " + token + ") but its final write (transaction " + zxid
                        + ") names done only below " + progress.lowWater() + " and " + done.orElse("nothing above")
                        + ": the heir runs it again");
                break;
            }
        }
    }
}
