package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.kafka.internal.OffsetOfRecord.Winner;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The transactional mode's rule between Kafka's transactional offset and ZooKeeper's, at a claim. */
class OffsetOfRecordTest {

    private static String meta(long... zk) {
        Set<Long> c = new LinkedHashSet<>();
        for (long z : zk) {
            c.add(z);
        }
        return OffsetOfRecord.metadata(c);
    }

    @Test
    void theMetadataNamesTheZooKeeperValuesAndNothingElseIsReadAsOurs() {
        assertThat(meta(40, 55)).isEqualTo("groupkeeper:zk=40,55");
        assertThat(OffsetOfRecord.candidates(meta(40, 55))).containsExactly(40L, 55L);
        assertThat(OffsetOfRecord.candidates(meta(-1))).containsExactly(-1L);
        for (String foreign : new String[] {null, "", "groupkeeper-mirror", "groupkeeper:zk=", "groupkeeper:zk=1,x"}) {
            assertThat(OffsetOfRecord.candidates(foreign))
                    .as(String.valueOf(foreign))
                    .isEmpty();
        }
    }

    @Test
    void kafkaWinsWhereZooKeeperMissedTheWriteAfterTheKafkaCommit() {
        // Committed 100 to Kafka while ZooKeeper held 60, then died before writing 100 to ZooKeeper.
        assertThat(OffsetOfRecord.decide(OptionalLong.of(60), OptionalLong.of(100), meta(60)))
                .isEqualTo(Winner.KAFKA);
        // ... or while a write of 80 had an unknown outcome and did land.
        assertThat(OffsetOfRecord.decide(OptionalLong.of(80), OptionalLong.of(100), meta(60, 80)))
                .isEqualTo(Winner.KAFKA);
        // ... or the first commit ever: ZooKeeper had no offset.
        assertThat(OffsetOfRecord.decide(OptionalLong.empty(), OptionalLong.of(100), meta(-1)))
                .isEqualTo(Winner.KAFKA);
        // Both agree.
        assertThat(OffsetOfRecord.decide(OptionalLong.of(100), OptionalLong.of(100), meta(60)))
                .isEqualTo(Winner.KAFKA);
    }

    @Test
    void zooKeeperWinsWhereSomebodyElseChangedIt() {
        for (long reset : List.of(0L, 40L, 150L)) { // a rewind, a skip forward
            assertThat(OffsetOfRecord.decide(OptionalLong.of(reset), OptionalLong.of(100), meta(60)))
                    .as("reset to %d", reset)
                    .isEqualTo(Winner.ZOOKEEPER);
        }
        // The offset node removed (start position again).
        assertThat(OffsetOfRecord.decide(OptionalLong.empty(), OptionalLong.of(100), meta(60)))
                .isEqualTo(Winner.ZOOKEEPER);
        // Kafka's offset not written by this mode (e.g. kafka-consumer-groups --reset-offsets): ZooKeeper decides.
        assertThat(OffsetOfRecord.decide(OptionalLong.of(60), OptionalLong.of(100), ""))
                .isEqualTo(Winner.ZOOKEEPER);
        // Nothing in Kafka yet.
        assertThat(OffsetOfRecord.decide(OptionalLong.of(60), OptionalLong.empty(), null))
                .isEqualTo(Winner.ZOOKEEPER);
    }
}
