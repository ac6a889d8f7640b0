package org.apache.kafka.tools.consumer.group;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Kafka's own {@code kafka-consumer-groups.sh --describe --group G} ({@link ConsumerGroupCommand}), driven through the
 * same service and method the command prints from ({@code ConsumerGroupService.collectGroupOffsets}), so a test reads
 * exactly what an operator's tool shows without parsing a table. In this package because the service is
 * package-private in kafka-tools.
 */
public final class ConsumerGroupsTool {

    /** One row of {@code --describe}: CURRENT-OFFSET, LOG-END-OFFSET, LAG (empty when the tool shows "-"). */
    public record Row(Optional<Long> currentOffset, Optional<Long> logEndOffset, Optional<Long> lag) {}

    /**
     * What {@code --describe} shows of {@code group}: whether Kafka knows it (the tool prints "does not exist"
     * otherwise), its state and a row per "topic:partition".
     */
    public record Described(boolean exists, Optional<GroupState> state, Map<String, Row> rows) {}

    private ConsumerGroupsTool() {}

    public static Described describe(String bootstrap, String group) throws Exception {
        ConsumerGroupCommandOptions opts = ConsumerGroupCommandOptions.fromArgs(
                new String[] {"--bootstrap-server", bootstrap, "--describe", "--group", group, "--timeout", "10000"});
        try (ConsumerGroupCommand.ConsumerGroupService service =
                new ConsumerGroupCommand.ConsumerGroupService(opts, Map.of())) {
            Map.Entry<Optional<GroupState>, Optional<Collection<PartitionAssignmentState>>> result;
            try {
                result = service.collectGroupOffsets(group);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupIdNotFoundException) {
                    return new Described(false, Optional.empty(), Map.of());
                }
                throw e;
            }
            Map<String, Row> rows = new TreeMap<>();
            result.getValue()
                    .ifPresent(states -> states.forEach(s -> {
                        if (s.topic().isPresent() && s.partition().isPresent()) {
                            rows.put(
                                    s.topic().get() + ":" + s.partition().get(),
                                    new Row(s.offset(), s.logEndOffset(), s.lag()));
                        }
                    }));
            return new Described(true, result.getKey(), rows);
        }
    }
}
