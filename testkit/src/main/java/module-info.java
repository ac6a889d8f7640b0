/**
 * groupkeeper's testkit: an in-memory store with ZooKeeper's semantics, for unit tests and simulation without servers.
 * Exports its API package only; {@code io.groupkeeper.testkit.internal} is not exported.
 */
module io.groupkeeper.testkit {
    requires transitive io.groupkeeper.core;
    requires io.groupkeeper.zkprotocol;
    requires org.slf4j;

    exports io.groupkeeper.testkit;
}
