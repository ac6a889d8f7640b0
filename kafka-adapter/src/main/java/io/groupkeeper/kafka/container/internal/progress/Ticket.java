package io.groupkeeper.kafka.container.internal.progress;

/**
 * One dispatched attempt at one record: the worker runs the handler on {@code record} and hands the ticket back
 * ({@link PartitionProgress#complete}, {@link PartitionProgress#retryLater}). {@code epoch} is the ownership the
 * record was dispatched under (the claim's fencing token): a ticket of an earlier ownership is dropped.
 * {@code attempt} is 1 for the first attempt, counting attempts a previous owner recorded in the offset node.
 *
 * <p>Tickets are compared by identity on purpose: the same record dispatched again (a retry) gets a new ticket, and an
 * old one handed back twice is refused.
 */
public final class Ticket<R> {
    private final long epoch;
    private final long offset;
    private final int attempt;
    private final R record;

    Ticket(long epoch, long offset, int attempt, R record) {
        this.epoch = epoch;
        this.offset = offset;
        this.attempt = attempt;
        this.record = record;
    }

    public long epoch() {
        return epoch;
    }

    public long offset() {
        return offset;
    }

    public int attempt() {
        return attempt;
    }

    public R record() {
        return record;
    }

    @Override
    public String toString() {
        return "ticket[epoch " + epoch + ", offset " + offset + ", attempt " + attempt + "]";
    }
}
