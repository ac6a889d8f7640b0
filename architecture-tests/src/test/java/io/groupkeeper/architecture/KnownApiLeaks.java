package io.groupkeeper.architecture;

import java.util.List;

/**
 * Internal types in public signatures, frozen: each entry is the start of a violation line of
 * {@link ArchitectureTest#publicApiSignaturesExposeNoInternalType}. Empty: the four leaks the rule found when it was
 * introduced (spring-boot-starter's auto-configuration and {@code GroupKeeperContainers} constructor named
 * {@code spring.internal} types) were fixed by making those members package-private.
 */
final class KnownApiLeaks {

    static final List<String> ALLOWED = List.of();

    private KnownApiLeaks() {
    }
}
