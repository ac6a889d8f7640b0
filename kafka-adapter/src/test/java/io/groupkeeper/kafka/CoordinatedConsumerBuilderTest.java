package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** The builder fails fast, naming the bad option; nothing here needs a server. */
class CoordinatedConsumerBuilderTest {

    private final GroupKeeper keeper = GroupKeeper.builder()
            .store(ZooKeeperStore.builder().connectString("127.0.0.1:1").build())
            .build(); // never started

    private CoordinatedConsumer.Builder<String, String> valid() {
        return CoordinatedConsumer.<String, String>builder(keeper)
                .group("billing")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9092")
                .deserializers(new StringDeserializer(), new StringDeserializer());
    }

    @Test
    void aValidConfigurationBuilds() {
        assertThat(valid().build()).isNotNull();
        assertThat(valid().kafkaProperty("enable.auto.commit", "false")
                        .kafkaProperty("auto.offset.reset", "none")
                        .kafkaProperty("security.protocol", "SASL_SSL")
                        .build()
                        .groupId())
                .isEqualTo("billing");
    }

    @Test
    void theMirrorToKafkaNeedsAKafkaGroupIdThatIsNotBlank() {
        assertThat(valid().mirrorOffsetsToKafka().build()).isNotNull();
        assertThat(valid().mirrorOffsetsToKafka("billing-zk").build()).isNotNull();
        assertThatThrownBy(() -> valid().mirrorOffsetsToKafka(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mirrorOffsetsToKafka: the Kafka group id must not be blank");
        assertThatThrownBy(() -> valid().mirrorOffsetsToKafka(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void groupTopicsAndBootstrapAreRequired() {
        assertThatThrownBy(() -> CoordinatedConsumer.builder(keeper)
                        .topics("orders")
                        .kafkaProperty("bootstrap.servers", "x:1")
                        .build())
                .hasMessageContaining("group is required");
        assertThatThrownBy(() -> CoordinatedConsumer.builder(keeper)
                        .group("g")
                        .kafkaProperty("bootstrap.servers", "x:1")
                        .build())
                .hasMessageContaining("at least one topic");
        assertThatThrownBy(() -> CoordinatedConsumer.<String, String>builder(keeper)
                        .group("g")
                        .topics("t")
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .build())
                .hasMessageContaining("bootstrap.servers is required");
    }

    @Test
    void kafkaGroupOffsetSettingsThatWouldBypassGroupkeeperAreRefused() {
        assertThatThrownBy(() ->
                        valid().kafkaProperty("enable.auto.commit", "true").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.auto.commit=true is not allowed");
        assertThatThrownBy(() ->
                        valid().kafkaProperty("auto.offset.reset", "earliest").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto.offset.reset=earliest")
                .hasMessageContaining("startPosition()");
    }

    @Test
    void deserializersComeAsInstancesOrAsClassProperties() {
        assertThatThrownBy(() -> CoordinatedConsumer.builder(keeper)
                        .group("g")
                        .topics("t")
                        .kafkaProperty("bootstrap.servers", "x:1")
                        .build())
                .hasMessageContaining("key deserializer is required");
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "x:1");
        p.setProperty("key.deserializer", StringDeserializer.class.getName());
        p.setProperty("value.deserializer", StringDeserializer.class.getName());
        assertThat(CoordinatedConsumer.builder(keeper)
                        .group("g")
                        .topics("t")
                        .kafkaProperties(p)
                        .build())
                .isNotNull();
    }

    @Test
    void badNamesAndDurationsAreRefusedWhenSet() {
        assertThatThrownBy(() -> valid().group("bad/group")).hasMessageContaining("group id");
        assertThatThrownBy(() -> valid().topics("a b")).hasMessageContaining("topic");
        assertThatThrownBy(() -> valid().commitInterval(Duration.ZERO)).hasMessageContaining("commitInterval");
        assertThatThrownBy(() -> valid().revocationTimeout(Duration.ofSeconds(-1)))
                .hasMessageContaining("revocationTimeout");
        assertThatThrownBy(() -> valid().instanceId("")).hasMessageContaining("instance id");
    }

    @Test
    void startNeedsAStartedKeeperAndPollNeedsAStartedConsumer() {
        CoordinatedConsumer<String, String> c = valid().build();
        assertThatThrownBy(() -> c.poll(Duration.ZERO)).hasMessageContaining("call start() first");
        assertThatThrownBy(c::start).hasMessageContaining("GroupKeeper must be started");
        c.close();
    }

    @Test
    void startPositionsAndPoliciesParse() {
        assertThat(StartPosition.parse("EARLIEST")).isEqualTo(StartPosition.earliest());
        assertThat(StartPosition.parse("latest")).isEqualTo(StartPosition.latest());
        assertThat(StartPosition.parse("2026-11-29T16:00:00Z"))
                .isEqualTo(StartPosition.timestamp(Instant.parse("2026-11-29T16:00:00Z")));
        assertThat(StartPosition.parse("1000").timestampValue()).contains(Instant.ofEpochMilli(1000));
        assertThatThrownBy(() -> StartPosition.parse("yesterday")).hasMessageContaining("'yesterday'");
        assertThat(OutOfRangePolicy.parse("Fail")).isEqualTo(OutOfRangePolicy.FAIL);
        assertThatThrownBy(() -> OutOfRangePolicy.parse("nearest")).hasMessageContaining("earliest, latest or fail");
    }
}
