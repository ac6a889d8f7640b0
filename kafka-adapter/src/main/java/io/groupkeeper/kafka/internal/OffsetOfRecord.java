package io.groupkeeper.kafka.internal;

import java.util.LinkedHashSet;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The transactional mode's rule for where a new owner starts (docs/exactly-once.md, "Where the offset of record
 * lives"). Kafka's transactional group offset is the offset of record; each one is committed with metadata naming the
 * ZooKeeper offset(s) the partition's offset node could hold at that moment (what it held, plus writes whose outcome
 * was not known). At a claim:
 *
 * <ul>
 *   <li>no Kafka offset: ZooKeeper's (or the start position);</li>
 *   <li>ZooKeeper equals Kafka: either;</li>
 *   <li>ZooKeeper is one of the values the metadata names: the owner committed to Kafka and died (or was cut off)
 *   before its ZooKeeper write landed: <b>Kafka wins</b> (ZooKeeper is corrected by the next commit);</li>
 *   <li>anything else (also Kafka metadata not written by groupkeeper): somebody else changed ZooKeeper — an
 *   operator's reset or hand edit: <b>ZooKeeper wins</b>, and goes into the partition's next transaction at once.</li>
 * </ul>
 */
final class OffsetOfRecord {

    static final String PREFIX = "groupkeeper:zk=";
    /** Bounds the metadata (the broker's offset.metadata.max.bytes is 4096 by default). */
    static final int MAX_CANDIDATES = 64;

    private static final Pattern LIST = Pattern.compile("-?[0-9]+(,-?[0-9]+)*");

    enum Winner {
        ZOOKEEPER,
        KAFKA
    }

    private OffsetOfRecord() {}

    /** The metadata of a Kafka commit made while ZooKeeper may hold any of {@code zkCandidates} (-1: no offset). */
    static String metadata(Set<Long> zkCandidates) {
        StringBuilder sb = new StringBuilder(PREFIX);
        int n = 0;
        for (long c : zkCandidates) {
            if (n++ > 0) {
                sb.append(',');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /** The ZooKeeper values a metadata string names; empty if it was not written by groupkeeper. */
    static Set<Long> candidates(String metadata) {
        Set<Long> out = new LinkedHashSet<>();
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return out;
        }
        String list = metadata.substring(PREFIX.length());
        if (!LIST.matcher(list).matches()) {
            return out;
        }
        for (String s : list.split(",")) {
            out.add(Long.parseLong(s));
        }
        return out;
    }

    /** Who wins between ZooKeeper's offset {@code zk} and Kafka's {@code kafka} committed with {@code metadata}. */
    static Winner decide(OptionalLong zk, OptionalLong kafka, String metadata) {
        if (kafka.isEmpty()) {
            return Winner.ZOOKEEPER;
        }
        if (zk.isPresent() && zk.getAsLong() == kafka.getAsLong()) {
            return Winner.KAFKA;
        }
        return candidates(metadata).contains(zk.isPresent() ? zk.getAsLong() : -1L) ? Winner.KAFKA : Winner.ZOOKEEPER;
    }
}
