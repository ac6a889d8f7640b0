package io.groupkeeper;

import java.util.Comparator;
import java.util.Objects;

/**
 * One partition of one topic. Ordered by topic, then partition, so assignments print and diff deterministically.
 */
public record TopicPartition(String topic, int partition) implements Comparable<TopicPartition> {

    private static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TopicPartition {
        Names.requireValid("topic", topic);
        if (partition < 0) {
            throw new IllegalArgumentException("partition of topic '" + topic + "' must be >= 0, was " + partition);
        }
    }

    public static TopicPartition of(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    /** Parses {@code topic:partition} (the last colon separates, so topic names may not contain one). */
    public static TopicPartition parse(String text) {
        Objects.requireNonNull(text, "text");
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected topic:partition, was '" + text + "'");
        }
        try {
            return new TopicPartition(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected topic:partition with a numeric partition, was '" + text + "'");
        }
    }

    @Override
    public int compareTo(TopicPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topic + ":" + partition;
    }
}
