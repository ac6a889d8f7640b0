package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.SinkAction;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import io.groupkeeper.examples.FencedSink;
import io.groupkeeper.examples.StaleWriteException;
import java.util.HashMap;
import java.util.Map;

/**
 * The downstream store of a chaos run: one {@link FencedSink} per group (the examples' sink, keyed by partition), and
 * every operation on it — a new owner's open, a processed record's write, each with the fencing token the member
 * carried — recorded in the {@link ChaosLedger} with the verdict, in the sink's own order. The checker then counts
 * the writes a former owner made after someone else had opened the partition, and how many of them the token
 * refused.
 */
public final class ChaosSink {

    private final ChaosLedger ledger;
    private final Map<String, FencedSink<Integer>> sinks = new HashMap<>();
    private long seq;

    ChaosSink(ChaosLedger ledger) {
        this.ledger = ledger;
    }

    /** A new owner announces {@code token}; returns the instant the sink took it (the start of its ownership). */
    public synchronized long open(String group, int partition, String member, long token) {
        long at = System.currentTimeMillis();
        FencedSink<Integer> sink = sinks.computeIfAbsent(group, g -> new FencedSink<>());
        boolean accepted = true;
        try {
            sink.open(partition, token);
        } catch (StaleWriteException e) {
            accepted = false;
        }
        ledger.sinkOp(new SinkOp(
                group, partition, member, SinkAction.OPEN, -1, token, accepted, current(sink, partition), ++seq, at));
        return at;
    }

    /**
     * Writes a processed record under {@code token} ({@link SinkOp#NO_TOKEN}: its batch was read under no claim, so it
     * is refused without asking the sink). Returns whether the sink accepted it.
     */
    public synchronized boolean write(String group, int partition, long offset, String member, long token) {
        long at = System.currentTimeMillis();
        FencedSink<Integer> sink = sinks.computeIfAbsent(group, g -> new FencedSink<>());
        boolean accepted = token != SinkOp.NO_TOKEN;
        if (accepted) {
            try {
                sink.write(partition, token, Long.toString(offset), member);
            } catch (StaleWriteException e) {
                accepted = false;
            }
        }
        ledger.sinkOp(new SinkOp(
                group,
                partition,
                member,
                SinkAction.WRITE,
                offset,
                token,
                accepted,
                current(sink, partition),
                ++seq,
                at));
        return accepted;
    }

    private static long current(FencedSink<Integer> sink, int partition) {
        return sink.token(partition).orElse(SinkOp.NO_TOKEN);
    }
}
