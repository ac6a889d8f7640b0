package io.groupkeeper.kafka.jdbc;

import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link FencedJdbcSink} refused an open or a write: the writer's fencing token is lower than one the database has
 * already accepted for the partition (the writer is a former owner — paused, or cut off past its session timeout —
 * that has not noticed yet that someone else owns the partition), or the writer holds no claim at all. Nothing of the
 * step landed. The writer drops the rest of its batch: the partition's current owner stores those records. In a
 * listener container, route it to {@code ErrorAction.skip()} (docs/exactly-once.md, "Into a database").
 */
public final class StaleTokenException extends RuntimeException {

    private final TopicPartition partition;
    private final OptionalLong staleToken;
    private final long currentToken;

    public StaleTokenException(TopicPartition partition, OptionalLong staleToken, long currentToken) {
        super(
                staleToken.isEmpty()
                        ? "write to " + partition
                                + " refused: the writer holds no claim of the partition (it was lost before "
                                + "its records were handed out); its current owner stores them"
                        : "stale writer refused: " + partition + " is fenced at token " + currentToken
                                + ", this step carries " + staleToken.getAsLong()
                                + " (a former owner that has not noticed the partition moved on)");
        this.partition = partition;
        this.staleToken = staleToken;
        this.currentToken = currentToken;
    }

    public TopicPartition partition() {
        return partition;
    }

    /** The token the refused writer carried; empty when it held no claim. */
    public OptionalLong staleToken() {
        return staleToken;
    }

    /** The highest token the database has accepted for the partition (-1 when the writer held no claim). */
    public long currentToken() {
        return currentToken;
    }
}
