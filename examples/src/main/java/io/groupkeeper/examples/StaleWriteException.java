package io.groupkeeper.examples;

/**
 * A {@link FencedSink} refused a write (or an open) whose fencing token is lower than one it has already accepted for
 * that partition: the writer is a former owner — paused, or cut off from ZooKeeper past its session timeout — that
 * has not noticed yet that someone else owns the partition. Nothing of the write landed; the writer should drop the
 * rest of its batch of that partition (its next {@code poll()} reports the partition lost).
 */
public final class StaleWriteException extends RuntimeException {

    private final String partition;
    private final long staleToken;
    private final long currentToken;

    public StaleWriteException(String partition, long staleToken, long currentToken) {
        super("stale writer refused: " + partition + " is fenced at token " + currentToken + ", this write carries "
                + staleToken + " (a former owner that has not noticed the partition moved on)");
        this.partition = partition;
        this.staleToken = staleToken;
        this.currentToken = currentToken;
    }

    public String partition() {
        return partition;
    }

    /** The token the refused writer carried. */
    public long staleToken() {
        return staleToken;
    }

    /** The highest token the sink has accepted for the partition (the current owner's, or later). */
    public long currentToken() {
        return currentToken;
    }
}
