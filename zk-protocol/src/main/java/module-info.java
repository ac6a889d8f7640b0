/**
 * The ZooKeeper store and its admin written once over a session port. Exports the port; the admin ({@code admin}:
 * describe, reset, export and import, migrate, delete, over the port, and its narrow view of the store: layout, bodies,
 * group creation, the transaction size rule), which uses nothing else of the store; the store ({@code internal}) only to the two
 * modules that implement the port: zk-store (an automatic module while ZooKeeper's split package keeps it from having a
 * descriptor) and testkit.
 */
module io.groupkeeper.zkprotocol {
    requires transitive io.groupkeeper.core;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports io.groupkeeper.zkprotocol;
    exports io.groupkeeper.zkprotocol.admin;
    exports io.groupkeeper.zkprotocol.internal to
            io.groupkeeper.zookeeper,
            io.groupkeeper.testkit;
}
