/**
 * groupkeeper's testkit: an in-memory store with ZooKeeper's semantics, for unit tests and simulation without servers.
 * Exports its API package only; {@code io.groupkeeper.testkit.internal} is not exported.
 */
module io.groupkeeper.testkit {
    requires transitive io.groupkeeper.core;
    requires transitive io.groupkeeper.zkprotocol; // InMemoryCoordinationStore.Builder#instrument takes its port
    requires org.slf4j;

    exports io.groupkeeper.testkit;
}
