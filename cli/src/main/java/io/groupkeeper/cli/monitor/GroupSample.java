package io.groupkeeper.cli.monitor;

import io.groupkeeper.status.LagStatus;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupStatus;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What the monitor last saw of one group: its description and status (status empty when sampled without Kafka), the
 * rebalances (generation changes) and commits (offset node writes) it has counted since it first saw the group, and
 * the commit rate between the last two samples.
 */
record GroupSample(
        String group,
        Instant at,
        GroupDescription description,
        Optional<GroupStatus> status,
        long rebalances,
        long commits,
        double commitRate) {

    /** Partition status labels: Burrow's, plus CORRUPT for an offset node that cannot be read. */
    static final String CORRUPT = "CORRUPT";

    /** The group's status label: its worst partition's, CORRUPT if any offset node is unreadable, "UNKNOWN" without one. */
    String statusLabel() {
        if (description.partitions().stream().anyMatch(GroupDescription.Partition::corrupt)) {
            return CORRUPT;
        }
        return status.map(s -> s.status().name()).orElse("UNKNOWN");
    }

    /** Partition status labels by "topic:partition". */
    Map<String, String> partitionStatus() {
        Map<String, String> out = new HashMap<>();
        status.ifPresent(s -> s.partitions()
                .forEach(r ->
                        out.put(r.partition().toString(), r.status().status().name())));
        description.partitions().forEach(p -> {
            if (p.corrupt()) {
                out.put(p.partition().toString(), CORRUPT);
            }
        });
        return out;
    }

    /** Status reasons by "topic:partition". */
    Map<String, String> partitionReasons() {
        Map<String, String> out = new HashMap<>();
        status.ifPresent(s -> s.partitions()
                .forEach(r -> out.put(r.partition().toString(), r.status().reason())));
        description.partitions().forEach(p -> {
            if (p.corrupt()) {
                out.put(p.partition().toString(), "offset node unreadable");
            }
        });
        return out;
    }

    long totalLag() {
        return description.partitions().stream()
                .filter(p -> p.lag().isPresent())
                .mapToLong(p -> Math.max(0, p.lag().getAsLong()))
                .sum();
    }

    OptionalDouble maxLagSeconds() {
        return description.partitions().stream()
                .filter(p -> p.lagTime().isPresent())
                .mapToDouble(p -> p.lagTime().get().toMillis() / 1000.0)
                .max();
    }

    static String[] statusLabels() {
        LagStatus[] all = LagStatus.values();
        String[] out = new String[all.length + 1];
        for (int i = 0; i < all.length; i++) {
            out[i] = all[i].name();
        }
        out[all.length] = CORRUPT;
        return out;
    }
}
