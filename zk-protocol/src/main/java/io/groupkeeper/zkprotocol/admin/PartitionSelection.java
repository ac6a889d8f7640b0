package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which partitions of a group an operation touches: every topic of the group ({@code --all-topics}), or named topics,
 * each whole ({@code --topic T}) or some of its partitions ({@code --topic T:0,2}).
 */
public final class PartitionSelection {

    private final boolean allTopics;
    private final SortedMap<String, Optional<SortedSet<Integer>>> topics;

    private PartitionSelection(boolean allTopics, SortedMap<String, Optional<SortedSet<Integer>>> topics) {
        this.allTopics = allTopics;
        this.topics = Collections.unmodifiableSortedMap(topics);
    }

    /** Every topic the group has offsets, owners, targets or subscriptions for. */
    public static PartitionSelection allTopics() {
        return new PartitionSelection(true, new TreeMap<>());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Parses {@code --topic} values: {@code T} or {@code T:0,2} (repeatable; partitions of one topic accumulate). */
    public static PartitionSelection parse(Iterable<String> specs) {
        Builder b = builder();
        for (String spec : specs) {
            b.parse(spec);
        }
        return b.build();
    }

    public boolean isAllTopics() {
        return allTopics;
    }

    /** Topic → the selected partitions, or empty for all of the topic's partitions. Empty when {@link #isAllTopics()}. */
    public SortedMap<String, Optional<SortedSet<Integer>>> topics() {
        return topics;
    }

    public boolean includes(String topic, int partition) {
        if (allTopics) {
            return true;
        }
        Optional<SortedSet<Integer>> p = topics.get(topic);
        return p != null && (p.isEmpty() || p.get().contains(partition));
    }

    @Override
    public String toString() {
        if (allTopics) {
            return "--all-topics";
        }
        StringBuilder sb = new StringBuilder();
        topics.forEach((t, p) -> {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append("--topic ").append(t);
            p.ifPresent(ps -> {
                sb.append(':');
                StringBuilder list = new StringBuilder();
                ps.forEach(i -> list.append(list.length() == 0 ? "" : ",").append(i));
                sb.append(list);
            });
        });
        return sb.toString();
    }

    /** Collects topics and partitions; {@link #build()} refuses an empty selection. */
    public static final class Builder {
        private final SortedMap<String, Optional<SortedSet<Integer>>> topics = new TreeMap<>();

        private Builder() {}

        /** The whole topic. */
        public Builder topic(String topic) {
            topics.put(Names.requireValid("topic", topic), Optional.empty());
            return this;
        }

        /** Some partitions of a topic (adds to those already selected, unless the whole topic is). */
        public Builder partitions(String topic, Iterable<Integer> partitions) {
            Names.requireValid("topic", topic);
            Optional<SortedSet<Integer>> current = topics.get(topic);
            if (current != null && current.isEmpty()) {
                return this; // the whole topic is already selected
            }
            SortedSet<Integer> set = current == null ? new TreeSet<>() : current.get();
            for (Integer p : partitions) {
                if (p == null || p < 0) {
                    throw new IllegalArgumentException("partition of topic '" + topic + "' must be >= 0, was " + p);
                }
                set.add(p);
            }
            topics.put(topic, Optional.of(set));
            return this;
        }

        /** {@code T} or {@code T:0,2}. */
        public Builder parse(String spec) {
            if (spec == null || spec.isBlank()) {
                throw new IllegalArgumentException("a topic name is needed, e.g. orders or orders:0,2");
            }
            int colon = spec.indexOf(':');
            if (colon < 0) {
                return topic(spec.trim());
            }
            String topic = spec.substring(0, colon).trim();
            String list = spec.substring(colon + 1).trim();
            if (list.isEmpty()) {
                throw new IllegalArgumentException(spec + ": no partitions after ':' (e.g. " + topic + ":0,2)");
            }
            TreeSet<Integer> partitions = new TreeSet<>();
            for (String p : list.split(",")) {
                try {
                    partitions.add(Integer.parseInt(p.trim()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(spec + ": '" + p.trim() + "' is not a partition number");
                }
            }
            return partitions(topic, partitions);
        }

        public PartitionSelection build() {
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("no topic selected");
            }
            SortedMap<String, Optional<SortedSet<Integer>>> copy = new TreeMap<>();
            topics.forEach((t, p) -> copy.put(t, p.map(s -> Collections.unmodifiableSortedSet(new TreeSet<>(s)))));
            return new PartitionSelection(false, copy);
        }
    }
}
