/**
 * What an admin tool needs of the ZooKeeper store, and nothing more: the layout ({@link AdminLayout}), the bodies of the
 * nodes it reads and the offsets it writes, the group's creation and the size rule of one transaction ({@link
 * AdminNodes}), and the admin itself ({@link GroupAdmin} and its pieces), written over the session port as the store is,
 * so it runs unchanged on ZooKeeper (zk-store's {@code ZooKeeperAdmin} connects it) and on the testkit's model. The
 * surface only spells what the store spells, so the admin and the protocol cannot disagree. No type here
 * names the store's internal classes, which stay free to change.
 */
package io.groupkeeper.zkprotocol.admin;
