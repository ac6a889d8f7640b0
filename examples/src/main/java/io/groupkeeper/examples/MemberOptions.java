package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of every command that runs one member against running servers ({@code consume}, {@code transform},
 * {@code jdbc-sink}), mixed into each, and the keeper they describe.
 */
final class MemberOptions {

    @Option(names = "--zk", required = true, paramLabel = "HOST:PORT", description = "ZooKeeper connect string")
    String zk;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--group", required = true, description = "consumer group")
    String group;

    @Option(
            names = "--namespace",
            defaultValue = "groupkeeper",
            description = "ZooKeeper root (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(
            names = "--session-timeout-ms",
            defaultValue = "15000",
            description = "ZooKeeper session timeout: after a crash (kill -9) the partitions move on once it has "
                    + "passed (default: ${DEFAULT-VALUE})")
    long sessionTimeoutMs;

    @Option(
            names = {"-X", "--kafka-property"},
            paramLabel = "KEY=VALUE",
            description = "any Kafka client property (security, SASL/SSL, fetch sizes ...; transform's producers "
                    + "take them too); repeatable")
    Map<String, String> kafkaProperties = new HashMap<>();

    /** A started keeper on the ZooKeeper these options name. */
    GroupKeeper startKeeper() {
        return GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(zk)
                        .namespace(namespace)
                        .sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
                        .build())
                .build()
                .start();
    }
}
