/**
 * What an admin tool needs of the ZooKeeper store, and nothing more: the layout ({@link AdminLayout}), the bodies of the
 * nodes it reads and the offsets it writes, the group's creation and the size rule of one transaction ({@link
 * AdminNodes}). Reads and writes themselves are the admin's (zk-store's {@code io.groupkeeper.zookeeper.admin}, on
 * Curator); this package only spells what the store spells, so the admin and the protocol cannot disagree. No type here
 * names the store's internal classes, which stay free to change.
 */
package io.groupkeeper.zkprotocol.admin;
