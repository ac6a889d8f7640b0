package io.groupkeeper.architecture;

import java.util.List;

/**
 * Internal types in public signatures, frozen: each entry is the start of a violation line of
 * {@link ArchitectureTest#publicApiSignaturesExposeNoInternalType}. (The four leaks the rule found when it was
 * introduced — spring-boot-starter's auto-configuration and {@code GroupKeeperContainers} constructor named
 * {@code spring.internal} types — were fixed by making those members package-private.)
 */
final class KnownApiLeaks {

    static final List<String> ALLOWED = List.of(
            /*
             * The store's group(): core's members get their GroupStore (the protocol in spi.internal, exported only to
             * the store's modules) from the store an application hands to GroupKeeper; an application never calls it.
             * What removes them: a CoordinationStore without group() and core reaching the protocol through a type of
             * spi.internal (a ProtocolStore the two stores implement behind their public classes); it changes the
             * contract suite and the store tests of zk-store, testkit, kafka-adapter and examples, which call
             * store.group(..) directly.
             */
            "io.groupkeeper.spi.CoordinationStore.group(java.lang.String) exposes io.groupkeeper.spi.internal.",
            "io.groupkeeper.zookeeper.ZooKeeperStore.group(java.lang.String) exposes io.groupkeeper.spi.internal.",
            "io.groupkeeper.testkit.InMemoryCoordinationStore.group(java.lang.String) exposes io.groupkeeper.spi.internal.",
            /*
             * Not API although public and outside internal: zk-protocol exports its admin surface only to zk-store,
             * which is a friend of core's spi.internal (the admin reads member nodes as MemberInfo).
             */
            "io.groupkeeper.zkprotocol.admin.");

    private KnownApiLeaks() {
    }
}
