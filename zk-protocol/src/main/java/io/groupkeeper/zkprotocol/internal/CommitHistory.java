package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.status.CommitSample;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The recent commits of each partition this store owns, as last read or written (the owner is the only committer):
 * each commit's offset node carries them, and the lag status reads them from there. Kept apart from the fencing: it
 * only says what the next body's history is.
 */
final class CommitHistory {

    private final Map<TopicPartition, List<CommitSample>> byPartition = new ConcurrentHashMap<>();

    /** The history a claim found (or a commit wrote) for {@code tp}. */
    void set(TopicPartition tp, List<CommitSample> history) {
        byPartition.put(tp, history);
    }

    /** A read of {@code tp}'s offset node by its owner: the node's history replaces what was kept, if any was. */
    void refresh(TopicPartition tp, List<CommitSample> read) {
        byPartition.computeIfPresent(tp, (k, v) -> read);
    }

    /** The history the next commit of {@code tp} writes: what was kept, with this commit's sample appended. */
    List<CommitSample> next(TopicPartition tp, long offset, OptionalLong logEnd, Instant now) {
        return NodeCodec.append(byPartition.getOrDefault(tp, List.of()), new CommitSample(offset, logEnd, now));
    }

    /** {@code tp} was released: the next owner reads the history from the node. */
    void forget(TopicPartition tp) {
        byPartition.remove(tp);
    }
}
