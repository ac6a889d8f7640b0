package io.groupkeeper.kafka.internal;

import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Internal (not API): what the listener container's per-partition progress needs from its consumer, beyond
 * {@link io.groupkeeper.kafka.CoordinatedConsumer}. {@link DefaultCoordinatedConsumer} implements it; the container
 * reaches it with {@code consumer instanceof ProgressCommits pc}. Polling thread only, like {@code poll()}.
 *
 * <p>A partition's offset node holds, besides the offset, an optional <em>done value</em>: one JSON object recording
 * what is processed above the offset ({@code ProgressCodec.encode}; groupkeeper stores it as it is, in the same fenced
 * write as the offset, and never copies it to Kafka). Use:
 * <ol>
 *   <li><b>Assigned</b> (inside the {@code ConsumerRebalanceListener.onPartitionsAssigned} the container registered):
 *   {@code ProgressCodec.resume(resumeOffset(tp), resumeDone(tp))} gives the progress to start from (no
 *   stored offset: the start policy placed the consumer, nothing is done; start at the first record fetched); seek to its low-water
 *   mark, then call {@link #progress} with it at once (until then commits write the consumer's position with no done
 *   value, which clears the stored one).</li>
 *   <li><b>While processing</b>: {@link #progress}{@code (tp, lowWater, ProgressCodec.encode(snapshot))} whenever the
 *   progress changes (cheap: it only records them). The consumer writes the latest values at its own commit points:
 *   every commit interval (one fenced transaction for all partitions, as for positions), {@code commitSync()},
 *   {@code close()}.</li>
 *   <li><b>Revoked</b> (inside {@code onPartitionsRevoked}): drain, call {@link #progress} with the final snapshot
 *   before returning; the consumer writes it in the same atomic write that releases the partition, so the next owner
 *   reads it with {@link #resumeDone} and replays nothing.</li>
 *   <li><b>Adopted</b> (an admin reset or hand edit, {@code OffsetsAdoptedListener}): the recorded progress is
 *   forgotten (the edit wins, I4) and the consumer has sought to the adopted offset; start again from
 *   {@code ProgressCodec.resume(resumeOffset(tp), resumeDone(tp))} and call {@link #progress} again.</li>
 * </ol>
 * Lost partitions need nothing: their records are dropped with them. Not in the transactional mode (its Kafka
 * transactions commit the consumer's position).
 */
public interface ProgressCommits {

    /**
     * Records what the next commits of the owned partition {@code partition} write: {@code offset} as the offset
     * (the low-water mark: every record below it is processed) instead of the consumer's position, and {@code done}
     * as its done value beside it (empty: none). Kept until called again, or until the stored offset changes under
     * it (an adopted external edit, an out-of-range correction): then commits write the position again until the
     * next call. Ignored for a partition not owned. Values are written only when they differ from what the store
     * holds (plus the lag-status heartbeat of lagging partitions), so calling it often costs no write.
     *
     * @throws IllegalArgumentException if {@code offset} is negative, or {@code done} is present and not one JSON
     *                                  object
     * @throws IllegalStateException    in the transactional mode, or if not started
     */
    void progress(TopicPartition partition, long offset, Optional<String> done);

    /**
     * The done value stored beside the offset an owned partition was assigned with (the offset the consumer sought to
     * when it gained it), or, after an external edit was adopted, the one beside the adopted offset; empty when the
     * node has none (an admin reset writes none) or the partition is not owned. May have been written with another
     * offset than the stored one (a hand edit of the offset alone): {@code ProgressCodec.resume} checks that.
     */
    Optional<String> resumeDone(TopicPartition partition);

    /**
     * The stored offset an owned partition was assigned with (where the consumer started fetching it), or the adopted
     * one after an external edit: the offset {@link #resumeDone} was read beside. Empty when the node held none (the
     * start policy placed the consumer) or the partition is not owned.
     */
    OptionalLong resumeOffset(TopicPartition partition);
}
