package io.groupkeeper.examples;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A downstream store that refuses a stale writer: the other half of groupkeeper's fencing token. The commit fence keeps
 * a former owner's offsets out of ZooKeeper, but not what its user code writes elsewhere. A member that was paused or
 * cut off while it held a batch (a GC pause, a frozen VM, a network partition past the session timeout) finishes that
 * batch after its partition moved on; only the store it writes to can stop it. So every write carries the fencing
 * token of the claim the batch was read under ({@code CoordinatedConsumer.fencingToken}: grows with every change of
 * hands, never repeats), and the store keeps, per partition, the highest token it has accepted:
 * <ul>
 *   <li>a token equal to it is the current owner writing again: accepted;</li>
 *   <li>a higher one is a new owner: accepted, and from now on the previous owner is refused;</li>
 *   <li>a lower one is a former owner that has not noticed yet: refused with a {@link StaleWriteException} naming the
 *   partition, the stale token and the current one. Nothing of that write lands.</li>
 * </ul>
 * A new owner {@link #open opens} the partition with its token when it is assigned, before it processes anything: the
 * store can only refuse a token lower than one it has seen, so without the open a former owner's writes would still be
 * accepted until the new owner's first write.
 *
 * <p>In memory (a keyed map per partition), so the example stays self-contained. A real sink does the same check in
 * the same atomic step as the write — in SQL, one transaction that updates {@code fence SET token = ? WHERE partition
 * = ? AND token <= ?} and writes the data only if that row was updated; a conditional write in a key-value store. A
 * check in a separate step from the write would let a stale write slip in between.
 *
 * @param <P> how the sink names a partition (e.g. Kafka's {@code TopicPartition})
 */
public final class FencedSink<P> {

    private final Map<P, Long> fence = new HashMap<>();
    private final Map<P, Map<String, String>> data = new HashMap<>();
    private long accepted;
    private long refused;

    /**
     * A new owner announces its token before it writes anything: from now on lower tokens are refused.
     *
     * @throws StaleWriteException if a higher token was seen already (this "new" owner is itself stale)
     */
    public synchronized void open(P partition, long token) {
        admit(partition, token);
    }

    /**
     * Writes {@code key = value} for {@code partition} if {@code token} is at least the highest seen for it.
     *
     * @throws StaleWriteException if a higher token was seen (nothing is written)
     */
    public synchronized void write(P partition, long token, String key, String value) {
        admit(partition, token);
        data.computeIfAbsent(partition, p -> new HashMap<>()).put(key, value);
        accepted++;
    }

    private void admit(P partition, long token) {
        Long current = fence.get(partition);
        if (current != null && token < current) {
            refused++;
            throw new StaleWriteException(String.valueOf(partition), token, current);
        }
        fence.put(partition, token);
    }

    /** The highest token accepted for {@code partition}, if any. */
    public synchronized OptionalLong token(P partition) {
        Long t = fence.get(partition);
        return t == null ? OptionalLong.empty() : OptionalLong.of(t);
    }

    /** What is stored for {@code partition} (a copy). */
    public synchronized Map<String, String> contents(P partition) {
        return Map.copyOf(data.getOrDefault(partition, Map.of()));
    }

    /** Writes accepted so far (opens not counted). */
    public synchronized long accepted() {
        return accepted;
    }

    /** Writes and opens refused so far. */
    public synchronized long refused() {
        return refused;
    }
}
