/**
 * The ZooKeeper store written once over a session port. Exports the port; the admin's narrow view of the store ({@code
 * admin}: layout, bodies, group creation, the transaction size rule) to zk-store, whose admin uses nothing else of it;
 * the store ({@code internal}) only to the two
 * modules that implement the port: zk-store (an automatic module while ZooKeeper's split package keeps it from having a
 * descriptor) and testkit.
 */
module io.groupkeeper.zkprotocol {
    requires transitive io.groupkeeper.core;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports io.groupkeeper.zkprotocol;
    exports io.groupkeeper.zkprotocol.admin to io.groupkeeper.zookeeper;
    exports io.groupkeeper.zkprotocol.internal to io.groupkeeper.zookeeper, io.groupkeeper.testkit;
}
