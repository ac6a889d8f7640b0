package io.groupkeeper.cli.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupState;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The commit counter counts offset-node writes partition by partition. */
class CommitCountTest {

    private static GroupDescription.Partition p(String topic, int partition, long writes) {
        return new GroupDescription.Partition(
                new TopicPartition(topic, partition),
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                false,
                writes);
    }

    private static GroupDescription group(GroupDescription.Partition... partitions) {
        return new GroupDescription(
                "g",
                GroupState.STABLE,
                Optional.empty(),
                "sticky",
                1,
                Optional.empty(),
                Optional.empty(),
                List.of(),
                List.of(partitions),
                Optional.empty(),
                List.of());
    }

    @Test
    void aRecreatedNodeTakesNoOtherPartitionsCommitsWithIt() {
        // "old":0 had 10,000 writes and was recreated (version 0 again); "live":0 committed 50 times meanwhile.
        GroupDescription before = group(p("old", 0, 10_000), p("live", 0, 100));
        GroupDescription now = group(p("old", 0, 0), p("live", 0, 150), p("new", 0, 3));
        assertThat(Monitor.writesSince(before, now)).isEqualTo(50 + 3);
    }
}
