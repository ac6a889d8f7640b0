package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import java.time.Duration;

/**
 * What {@link OffsetMirror} needs from Kafka, without Kafka: per partition a fence that, opened, shuts out every
 * earlier writer of that partition (Kafka: {@code initTransactions} of the partition's transactional id), offset writes
 * that the fence rejects once a later writer is open (a transaction with {@code sendOffsetsToTransaction}), and whether
 * Kafka's group has live members of its own. {@link KafkaFencedOffsets} is Kafka's; the simulator has a model.
 * Called on the mirror's one thread only.
 */
interface FencedOffsets {

    /** A new writer of {@code tp}, its fence opened (every earlier writer of {@code tp} is fenced); throws if not. */
    Writer open(TopicPartition tp);

    /** Null if Kafka's group has no live member of Kafka's own protocol (or that is unknown), else what it has. */
    String liveMembers();

    /** Releases the clients (the writers are closed by the mirror). */
    void close(Duration wait);

    /** One partition's writer: a transactional producer of its own. */
    interface Writer {

        /**
         * Writes {@code offset} as the partition's offset in Kafka's group. Throws {@link Fenced} if a later writer of
         * the partition was opened (nothing written), {@link Failed} if the write failed otherwise.
         */
        void write(long offset);

        void close(Duration wait);
    }

    /** A later writer of the partition was opened: this one can write no more. */
    final class Fenced extends RuntimeException {
        Fenced(Throwable cause) {
            super(cause);
        }
    }

    /** A write failed and was rolled back; {@link #usable} says whether the writer can still write. */
    final class Failed extends RuntimeException {
        final boolean usable;

        Failed(Throwable cause, boolean usable) {
            super(cause);
            this.usable = usable;
        }
    }
}
