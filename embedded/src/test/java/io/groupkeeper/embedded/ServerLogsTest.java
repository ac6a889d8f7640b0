package io.groupkeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class ServerLogsTest {

    @Test
    void quietsServerLoggersButKeepsConfiguredLevelsAndClientLoggers() {
        ServerLogs.quiet();

        Logger broker = LoggerFactory.getLogger("kafka.server.BrokerServer");
        assertThat(broker.isInfoEnabled()).isFalse();
        assertThat(broker.isWarnEnabled()).isTrue();
        Logger zkServer = LoggerFactory.getLogger("org.apache.zookeeper.server.ZooKeeperServer");
        assertThat(zkServer.isInfoEnabled()).isFalse();
        assertThat(zkServer.isWarnEnabled()).isTrue();

        // logback-test.xml sets org.apache.kafka.snapshot to ERROR: an explicit level wins.
        assertThat(LoggerFactory.getLogger("org.apache.kafka.snapshot.Snapshots")
                        .isWarnEnabled())
                .isFalse();
        // Client loggers keep the root level (INFO).
        assertThat(LoggerFactory.getLogger("org.apache.kafka.clients.consumer.KafkaConsumer")
                        .isInfoEnabled())
                .isTrue();
        assertThat(LoggerFactory.getLogger("org.apache.zookeeper.ClientCnxn").isInfoEnabled())
                .isTrue();
    }
}
