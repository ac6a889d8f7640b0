package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.internal.MembersSnapshot;

/**
 * The leader's view of a group's members. Two implementations: {@link PersistentWatchMemberView} (one persistent
 * recursive watch, the default) and {@link ChildWatchMemberView} (a child watch and a listing per change, for servers
 * that refuse persistent watches); {@link MemberViewBridge} chooses, as Curator's {@code CuratorCacheBridge} does.
 */
interface MemberView {

    /** The live members; {@code onChange} runs once at the next change of membership (or after a reconnect). */
    MembersSnapshot read(Runnable onChange);

    /** The live members, listed and read now (no watch, nothing cached). */
    MembersSnapshot list();
}
