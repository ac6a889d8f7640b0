package io.groupkeeper.kafka.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.metrics.GroupMetrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The owned partitions and their state (the adapter's {@code SubscriptionState}): position, committed offset, paused,
 * stopped by the out-of-range policy, and which ones changed since the last fetch. Polling thread only, except the two
 * views ({@link #assignmentView()}, {@link #pausedView()}), which any thread may read.
 *
 * <p>It does not call the {@code KafkaConsumer}: the poll loop makes the consumer's assignment match
 * {@link #activePositions()} after a change.
 */
final class Positions {

    private final Map<TopicPartition, OwnedPartition> owned = new TreeMap<>();
    /**
     * Partitions whose ownership or position changed since {@link #clearTouched()} (called before each fetch): records
     * fetched for them meanwhile are stale.
     */
    private final Set<TopicPartition> touched = new HashSet<>();
    /** Owned partitions paused by the user; forgotten when the partition is. */
    private final Set<org.apache.kafka.common.TopicPartition> paused = new HashSet<>();

    private volatile Set<org.apache.kafka.common.TopicPartition> assignmentView = Set.of();
    private volatile Set<org.apache.kafka.common.TopicPartition> pausedView = Set.of();

    private final GroupMetrics metrics;
    private final String group;
    private final Supplier<String> memberId;

    Positions(GroupMetrics metrics, String group, Supplier<String> memberId) {
        this.metrics = metrics;
        this.group = group;
        this.memberId = memberId;
    }

    // ------------------------------------------------------------------ ownership

    /**
     * Starts tracking {@code tp}, at its stored offset if there is one (otherwise unresolved), with its lag gauge.
     * The gauge lives exactly as long as the entry: {@link #remove} is the only way out.
     */
    OwnedPartition add(TopicPartition tp, OptionalLong stored) {
        OwnedPartition p = new OwnedPartition(tp);
        p.committed = stored;
        if (stored.isPresent()) {
            p.position = stored.getAsLong();
        }
        remove(tp);
        owned.put(tp, p);
        metrics.lagStarted(group, memberId.get(), tp, () -> p.lag);
        touched.add(tp);
        return p;
    }

    /** Stops tracking {@code tp} (and its lag gauge); null if it was not owned. */
    OwnedPartition remove(TopicPartition tp) {
        OwnedPartition p = owned.remove(tp);
        if (p != null) {
            metrics.lagStopped(group, memberId.get(), tp);
            touched.add(tp);
        }
        return p;
    }

    OwnedPartition get(TopicPartition tp) {
        return owned.get(tp);
    }

    OwnedPartition get(org.apache.kafka.common.TopicPartition ktp) {
        return owned.get(Partitions.gk(ktp));
    }

    boolean isEmpty() {
        return owned.isEmpty();
    }

    /** The owned partitions, in partition order. */
    SortedSet<TopicPartition> owned() {
        return new TreeSet<>(owned.keySet());
    }

    /** Every owned partition, in partition order (a live view: copy it before removing). */
    Collection<OwnedPartition> all() {
        return Collections.unmodifiableCollection(owned.values());
    }

    /** Owned partitions waiting for their start position. */
    List<OwnedPartition> unresolved() {
        List<OwnedPartition> out = new ArrayList<>();
        for (OwnedPartition p : owned.values()) {
            if (p.unresolved()) {
                out.add(p);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ positions

    /** Moves {@code p}'s position (the caller also tells the {@code KafkaConsumer} if it fetches {@code p}). */
    void position(OwnedPartition p, long offset) {
        p.position = offset;
        touched.add(p.tp);
    }

    void touch(TopicPartition tp) {
        touched.add(tp);
    }

    boolean touched(TopicPartition tp) {
        return touched.contains(tp);
    }

    void clearTouched() {
        touched.clear();
    }

    /** What the {@code KafkaConsumer} should fetch, and from where: the active partitions and their positions. */
    Map<org.apache.kafka.common.TopicPartition, Long> activePositions() {
        Map<org.apache.kafka.common.TopicPartition, Long> out = new LinkedHashMap<>();
        for (OwnedPartition p : owned.values()) {
            if (p.active()) {
                out.put(p.ktp, p.position);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ paused

    /** Pauses {@code ktp} if it is owned; false if it is not. */
    boolean pause(org.apache.kafka.common.TopicPartition ktp) {
        return owned.containsKey(Partitions.gk(ktp)) && paused.add(ktp);
    }

    /** True if {@code ktp} was paused. */
    boolean resume(org.apache.kafka.common.TopicPartition ktp) {
        return paused.remove(ktp);
    }

    // ------------------------------------------------------------------ views for other threads

    /**
     * After a change: forgets the pause of partitions no longer owned, publishes the two views, and returns the paused
     * partitions (to pause again in the consumer: a newly assigned or re-positioned partition is not paused there).
     */
    Set<org.apache.kafka.common.TopicPartition> refreshViews() {
        Set<org.apache.kafka.common.TopicPartition> view = new HashSet<>();
        owned.values().forEach(p -> view.add(p.ktp));
        if (!view.equals(assignmentView)) {
            assignmentView = Set.copyOf(view);
        }
        paused.retainAll(view);
        if (!paused.equals(pausedView)) {
            pausedView = Set.copyOf(paused);
        }
        return pausedView;
    }

    /** Every owned partition (also those not fetched: unresolved, or stopped by the out-of-range policy). */
    Set<org.apache.kafka.common.TopicPartition> assignmentView() {
        return assignmentView;
    }

    Set<org.apache.kafka.common.TopicPartition> pausedView() {
        return pausedView;
    }
}
