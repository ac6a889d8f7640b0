package io.groupkeeper.architecture;

import java.util.List;

/**
 * Internal types in public signatures, frozen: each entry is the start of a violation line of
 * {@link ArchitectureTest#publicApiSignaturesExposeNoInternalType}. (The four leaks the rule found when it was
 * introduced — spring-boot-starter's auto-configuration and {@code GroupKeeperContainers} constructor named
 * {@code spring.internal} types — were fixed by making those members package-private. The stores' {@code group(String)},
 * which returned the protocol's {@code GroupStore}, gave way to {@code spi.internal.GroupStores}, where each store class
 * registers its group views.)
 */
final class KnownApiLeaks {

    static final List<String> ALLOWED = List.of(
            /*
             * Not API although public and outside internal: zk-protocol exports its admin surface only to zk-store,
             * which is a friend of core's spi.internal (the admin reads member nodes as MemberInfo).
             */
            "io.groupkeeper.zkprotocol.admin.");

    private KnownApiLeaks() {}
}
