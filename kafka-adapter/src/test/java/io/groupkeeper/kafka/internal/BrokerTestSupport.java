package io.groupkeeper.kafka.internal;

import io.groupkeeper.embedded.EmbeddedKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** An in-process broker (KRaft, no ZooKeeper) for the tests of this package's Kafka-facing parts, one per class. */
abstract class BrokerTestSupport {

    static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.builder().build().start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }
}
