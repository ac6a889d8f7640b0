package io.groupkeeper.examples;

import io.groupkeeper.kafka.CoordinatedConsumer;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;

/**
 * The fencing token of every partition the polling thread serves, taken when the partition is assigned: install it
 * as the consumer's listener, {@link #bind} the consumer, and stamp every batch with {@link #of}.
 *
 * <p>On assignment (the polling thread, inside {@code poll()}) it reads {@link CoordinatedConsumer#fencingToken} —
 * the token of the claim that just gave this member the partition — and {@link FencedSink#open opens} the sink with
 * it before any record of the partition is handed over, so from that instant the previous owner's writes are refused.
 * On revocation or loss it forgets it.
 *
 * <p>Why the token is kept from the assignment rather than read again later: it must name the claim under which the
 * records were read. The member's live token can move on while user code holds a batch — the partition lost and
 * claimed again by this member (a reconnection) gives a new, higher token, under which a stale batch would be
 * accepted over what the owner in between wrote; and while a revocation waits for the batch in hand the live token
 * is already empty. Every batch that {@code poll()} returns for a partition was read under the claim this class holds
 * for it: assignments, revocations and losses reach user code on the polling thread, in order with the records.
 */
public final class FencingTokens implements ConsumerRebalanceListener {

    private final FencedSink<TopicPartition> sink;
    private final Map<TopicPartition, Long> tokens = new ConcurrentHashMap<>();
    private volatile CoordinatedConsumer<?, ?> consumer;

    public FencingTokens(FencedSink<TopicPartition> sink) {
        this.sink = sink;
    }

    /** The consumer this listener was installed on (call right after {@code build()}, before {@code start()}). */
    public FencingTokens bind(CoordinatedConsumer<?, ?> consumer) {
        this.consumer = consumer;
        return this;
    }

    /** The token of the claim under which the polling thread serves {@code partition}; empty if it does not. */
    public OptionalLong of(TopicPartition partition) {
        Long t = tokens.get(partition);
        return t == null ? OptionalLong.empty() : OptionalLong.of(t);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            OptionalLong token = consumer.fencingToken(tp);
            if (token.isEmpty()) {
                continue; // lost again already: its loss is the next event, and no record of it is handed over
            }
            try {
                sink.open(tp, token.getAsLong());
                tokens.put(tp, token.getAsLong());
            } catch (StaleWriteException e) {
                // a newer owner opened it already: this claim is stale, its records must not be written
                System.err.println(e.getMessage());
            }
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        partitions.forEach(tokens::remove);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        partitions.forEach(tokens::remove);
    }
}
