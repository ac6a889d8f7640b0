package io.groupkeeper.testkit.sim;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.testkit.ModelTransactions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which store commit (the zxid of the transaction that wrote the offset node) each offset a member committed came from:
 * the order in which the mirrored offsets must reach Kafka. A member's commit is the latest transaction of its session
 * that wrote that offset to the partition's node, when the member learns it committed.
 */
final class StoreCommits {

    private record Write(long zxid, long session, long offset) {}

    private record Key(String member, TopicPartition tp, long offset) {}

    private final java.util.function.Function<TopicPartition, String> pathOf;
    private final Map<String, List<Write>> writes = new HashMap<>();
    private final Map<Key, Long> commits = new HashMap<>();
    /** Final offsets handed over, the session whose release is to write them. */
    private final Map<Key, Long> handOvers = new HashMap<>();

    private long lastZxid;

    StoreCommits(java.util.function.Function<TopicPartition, String> pathOf) {
        this.pathOf = pathOf;
    }

    /** Every transaction the model applies (through {@link SimChecker}). */
    void applied(long session, long zxid, List<ModelTransactions.Write> ws) {
        lastZxid = Math.max(lastZxid, zxid);
        for (ModelTransactions.Write w : ws) {
            if ((w.kind() == ModelTransactions.Kind.CREATE || w.kind() == ModelTransactions.Kind.SET)
                    && w.offset().isPresent()) {
                writes.computeIfAbsent(w.path(), p -> new ArrayList<>())
                        .add(new Write(zxid, session, w.offset().getAsLong()));
            }
        }
    }

    /** {@code m} learnt that its commit of {@code tp} at {@code offset} landed (in its current session). */
    void committed(SimMember m, TopicPartition tp, long offset) {
        long zxid = latest(tp, m.sessionId(), offset);
        if (zxid >= 0) {
            Key k = new Key(m.id, tp, offset);
            handOvers.remove(k);
            commits.put(k, zxid);
        }
    }

    /**
     * {@code m} handed {@code tp}'s final offset over: the store commits it with the release, which may land later
     * (or never, if the session ends first).
     */
    void handedOver(SimMember m, TopicPartition tp, long offset) {
        Key k = new Key(m.id, tp, offset);
        commits.remove(k);
        handOvers.put(k, m.sessionId());
    }

    /**
     * The zxid of {@code member}'s latest commit of {@code tp} at {@code offset}, as known now: for a final offset
     * handed over, the release that wrote it, or if that has not landed yet, one after every transaction so far
     * (it can land only later); -1 if it made none.
     */
    long commit(String member, TopicPartition tp, long offset) {
        Key k = new Key(member, tp, offset);
        Long handing = handOvers.get(k);
        if (handing != null) {
            long zxid = latest(tp, handing, offset);
            return zxid >= 0 ? zxid : lastZxid + 1;
        }
        return commits.getOrDefault(k, -1L);
    }

    private long latest(TopicPartition tp, long session, long offset) {
        List<Write> ws = writes.getOrDefault(pathOf.apply(tp), List.of());
        for (int i = ws.size() - 1; i >= 0; i--) {
            Write w = ws.get(i);
            if (w.session() == session && w.offset() == offset) {
                return w.zxid();
            }
        }
        return -1;
    }
}
