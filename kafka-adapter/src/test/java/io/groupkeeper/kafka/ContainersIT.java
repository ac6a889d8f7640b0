package io.groupkeeper.kafka;

import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The {@link CoreScenario} against containerized ZooKeeper and Kafka (separate processes, real networking), as a
 * deployment would see them. Skipped, not failed, where no Docker engine is available.
 */
@Testcontainers(disabledWithoutDocker = true)
class ContainersIT {

    @Container
    static final GenericContainer<?> ZOOKEEPER =
            new GenericContainer<>(DockerImageName.parse("zookeeper:3.9")).withExposedPorts(2181);

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer(DockerImageName.parse("apache/kafka:4.0.0"));

    @Test
    void aGroupSplitsATopicAnotherGroupGetsEverythingAndAGracefulLeaveLosesNothing() throws Exception {
        CoreScenario.run(ZOOKEEPER.getHost() + ":" + ZOOKEEPER.getMappedPort(2181), KAFKA.getBootstrapServers());
    }
}
