package io.groupkeeper.kafka.container.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The failed attempts at one record (or batch) of each partition, kept while the partition goes back to an earlier
 * offset: a retry that waits while the worker polls (the partition is handed back at the record), and the
 * transactional mode's abort, which rewinds the partition to where its transaction began, so the records before the
 * failed one come again first. Without them, a record whose output is always rejected would start again at attempt 1
 * after every rewind, and its partition would repeat forever.
 *
 * <p>An entry is forgotten when the partition's position passes its record (a later record is handled), when the record
 * is done (recovered; or handled, outside the transactional mode, where an output can still fail after the call), and
 * when the partition changes hands (the claim's fencing token differs when it is next asked about: a new claim starts
 * afresh; one entry per partition at most). Worker thread only.
 */
final class Attempts {

    /**
     * {@code made} attempts failed at the record (or batch) at {@code offset}; {@code last} is the batch's last
     * offset (the record's own for one record). {@code exhausted}: the failure of the last attempt the policy
     * allows, when an abort rewound the partition before the record could be recovered; it is recovered when the
     * partition comes back to it. {@code token}: the fencing token of the claim it was made under.
     */
    record Entry(long offset, long last, int made, Throwable exhausted, OptionalLong token) {}

    private static final Entry NONE = new Entry(-1, -1, 0, null, OptionalLong.empty());

    private final Map<TopicPartition, Entry> entries = new HashMap<>();
    /** The fencing token of a partition's current claim (asked only when an entry is kept for it). */
    private final Function<TopicPartition, OptionalLong> tokens;

    Attempts(Function<TopicPartition, OptionalLong> tokens) {
        this.tokens = tokens;
    }

    /** What is known about the record (or batch starting) at {@code offset}; no attempts if nothing. */
    Entry at(TopicPartition tp, long offset) {
        if (entries.isEmpty()) {
            return NONE;
        }
        Entry e = entries.get(tp);
        if (e == null) {
            return NONE;
        }
        if (offset > e.offset || !e.token.equals(tokens.apply(tp))) { // the position passed the record; another claim
            entries.remove(tp);
            return NONE;
        }
        return offset == e.offset ? e : NONE; // (an earlier record, coming again after a rewind: kept)
    }

    void failed(TopicPartition tp, long offset, long last, int made, Throwable exhausted) {
        entries.put(tp, new Entry(offset, last, made, exhausted, tokens.apply(tp)));
    }

    /** The record (or batch) at {@code offset} is done: handled, or recovered. */
    void done(TopicPartition tp, long offset) {
        if (!entries.isEmpty()) {
            Entry e = entries.get(tp);
            if (e != null && e.offset <= offset) {
                entries.remove(tp);
            }
        }
    }
}
