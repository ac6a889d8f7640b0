package io.groupkeeper.kafka.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.internal.progress.ProgressLimits;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@code build()} runs the checks of the workers' consumers ({@code CoordinatedConsumer.Builder.validate()}), so a bad
 * setting fails there, naming it, and not at {@code start()} or in a worker. Nothing here needs a server.
 */
class ListenerContainerBuilderTest {

    private final GroupKeeper keeper = GroupKeeper.builder()
            .store(ZooKeeperStore.builder().connectString("127.0.0.1:1").build())
            .build(); // never started

    private ListenerContainerBuilder<String, String> plain() {
        return ListenerContainer.<String, String>builder(keeper)
                .group("enrich")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .recordHandler(r -> {});
    }

    private ListenerContainerBuilder<String, String> tx() {
        return plain().transactional(new StringSerializer(), new StringSerializer());
    }

    @Test
    void validConfigurationsBuild() {
        assertThat(plain().build()).isNotNull();
        assertThat(tx().producerProperty("linger.ms", 5)
                        .producerProperty("acks", "all")
                        .kafkaProperty("isolation.level", "read_committed")
                        .build())
                .isNotNull();
    }

    @Test
    void theTransactionalModesSettingsFailAtBuildNamingTheSetting() {
        assertThatThrownBy(
                        () -> tx().producerProperty("enable.idempotence", false).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.idempotence=false");
        assertThatThrownBy(
                        () -> tx().kafkaProperty("enable.idempotence", "false").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.idempotence=false");
        assertThatThrownBy(() -> tx().producerProperty("acks", "1").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("acks=1");
        assertThatThrownBy(
                        () -> tx().producerProperty("transactional.id", "mine").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transactional.id=mine");
        assertThatThrownBy(() ->
                        tx().consumerOptions(b -> b.mirrorOffsetsToKafka()).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mirrorOffsetsToKafka")
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> plain().producerProperty("linger.ms", 5).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("[linger.ms]")
                .hasMessageContaining("transactional mode is not");
        assertThatThrownBy(() -> tx().producerProperty("linger.ms", "soon").build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("linger.ms")
                .hasMessageContaining("soon");
    }

    @Test
    void theConsumersSettingsFailAtBuildNamingTheSetting() {
        assertThatThrownBy(
                        () -> plain().kafkaProperty("max.poll.records", "lots").build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("max.poll.records")
                .hasMessageContaining("lots");
        assertThatThrownBy(() ->
                        plain().kafkaProperty("enable.auto.commit", "true").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.auto.commit=true");
        assertThatThrownBy(() -> plain().consumerOptions(b -> b.kafkaProperty("auto.offset.reset", "latest"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto.offset.reset=latest");
    }

    @Test
    void orderingsParallelismAndTheAsynchronousHandlerBuild() {
        for (Ordering o : Ordering.values()) {
            assertThat(plain().ordering(o).parallelism(64).build()).isNotNull();
        }
        assertThat(ListenerContainer.<String, String>builder(keeper)
                        .group("enrich")
                        .topics("orders")
                        .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .asyncHandler(r -> java.util.concurrent.CompletableFuture.completedFuture(null))
                        .ordering(Ordering.KEY)
                        .parallelism(1_000)
                        .build())
                .isNotNull();
        assertThat(tx().ordering(Ordering.PARTITION).parallelism(1).build()).isNotNull();
    }

    @Test
    void combinationsThatCannotWorkAreRefusedSayingWhy() {
        assertThatThrownBy(() -> plain().parallelism(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parallelism must be >= 1, was 0");
        assertThatThrownBy(() -> plain().ordering(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("ordering");
        assertThatThrownBy(() -> tx().ordering(Ordering.KEY).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transactional mode")
                .hasMessageContaining("one call at a time")
                .hasMessageContaining("ordering KEY");
        assertThatThrownBy(() -> tx().parallelism(4).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("parallelism 4");
        assertThatThrownBy(() -> plain().batchHandler(rs -> {}).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exactly one of recordHandler, batchHandler and asyncHandler");
        ListenerContainerBuilder<String, String> batch = ListenerContainer.<String, String>builder(keeper)
                .group("enrich")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .batchHandler(rs -> {});
        assertThatThrownBy(() -> batch.ordering(Ordering.UNORDERED).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("batch handler")
                .hasMessageContaining("one partition's fetched records in one call")
                .hasMessageContaining("ordering UNORDERED");
        ListenerContainerBuilder<String, String> asyncTx = ListenerContainer.<String, String>builder(keeper)
                .group("enrich")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .asyncHandler(r -> java.util.concurrent.CompletableFuture.completedFuture(null))
                .transactional(new StringSerializer(), new StringSerializer());
        assertThatThrownBy(asyncTx::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("an asynchronous handler");
    }

    @Test
    void manualAcksRunWithARecordHandlerOneAtATimePerPartitionOnly() {
        assertThat(plain().manualAcks(true).build()).isNotNull();
        assertThatThrownBy(() -> plain().manualAcks(true).parallelism(2).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("manualAcks(true)")
                .hasMessageContaining("parallelism 2");
        assertThatThrownBy(() -> plain().manualAcks(true).ordering(Ordering.KEY).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ordering KEY");
        assertThatThrownBy(() -> tx().manualAcks(true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("manualAcks(true)")
                .hasMessageContaining("transactional");
        ListenerContainerBuilder<String, String> batch = ListenerContainer.<String, String>builder(keeper)
                .group("enrich")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .batchHandler(rs -> {});
        assertThatThrownBy(() -> batch.manualAcks(true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a batch handler");
        assertThatThrownBy(HandlerContext::acknowledge)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("during it");
    }

    @Test
    void theProgressLimitsRejectABadValueAtTheSetterNamingItAndTheRange() {
        assertThatThrownBy(() -> plain().maxSpan(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSpan must be in 1..262144, was 0");
        assertThatThrownBy(() -> plain().maxSpan(ProgressLimits.MAX_SPAN + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSpan must be in 1..262144, was 262145");
        assertThatThrownBy(() -> plain().maxBufferedRecords(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBufferedRecords must be in 1..2147483647, was 0");
        assertThatThrownBy(() -> plain().maxBufferedBytes(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBufferedBytes must be in 1..9223372036854775807, was -1");
        assertThat(plain().maxSpan(1).maxBufferedRecords(1).maxBufferedBytes(1).build())
                .isNotNull();
        assertThat(plain().maxSpan(ProgressLimits.MAX_SPAN)
                        .maxBufferedRecords(Integer.MAX_VALUE)
                        .maxBufferedBytes(Long.MAX_VALUE)
                        .build())
                .isNotNull();
    }

    @Test
    void theProgressLimitsAreRefusedWhereNoProgressIsKept() {
        ListenerContainerBuilder<String, String> batch = ListenerContainer.<String, String>builder(keeper)
                .group("enrich")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .batchHandler(rs -> {});
        assertThatThrownBy(() -> batch.maxSpan(100).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxSpan, maxBufferedRecords and maxBufferedBytes")
                .hasMessageContaining("the batch handler runs with the defaults");
        assertThatThrownBy(() -> tx().maxBufferedRecords(100).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the transactional mode runs with the defaults");
    }

    @Test
    void theDeadLetterTopicCheckAndTheirCreationConflictAtTheSecondSetter() {
        assertThatThrownBy(() -> plain().createDeadLetterTopics(true).checkDeadLetterTopics(false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkDeadLetterTopics(false)")
                .hasMessageContaining("createDeadLetterTopics(true)");
        assertThatThrownBy(() -> plain().checkDeadLetterTopics(false).createDeadLetterTopics(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkDeadLetterTopics(false)")
                .hasMessageContaining("createDeadLetterTopics(true)");
        assertThat(plain().createDeadLetterTopics(false)
                        .checkDeadLetterTopics(false)
                        .build())
                .isNotNull();
        assertThat(plain().checkDeadLetterTopics(false)
                        .checkDeadLetterTopics(true)
                        .createDeadLetterTopics(true)
                        .build())
                .isNotNull();
    }
}
