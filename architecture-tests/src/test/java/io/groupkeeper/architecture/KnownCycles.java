package io.groupkeeper.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import java.util.Set;

/**
 * Package cycles that existed when {@link ArchitectureTest#packagesHaveNoCycles} was introduced, frozen so that the
 * rule holds every other pair of packages to one direction. Remove an entry when its cycle is gone.
 */
final class KnownCycles {

    /**
     * FROZEN, to be removed: core's root package {@code io.groupkeeper} holds both the facade ({@code GroupKeeper},
     * which builds members from {@code assignor}, {@code metrics} and {@code spi} types) and the value types
     * {@code TopicPartition} and {@code Names} that those three packages use; so root → spi → root. The fix moves the
     * value types (or the facade) to a package of their own, an API change for every module and every user, so it
     * waits for the refactorings under way to merge. Only these edges are ignored: any other dependency of
     * {@code assignor}, {@code metrics} or {@code spi} on the root package (say, on {@code GroupKeeper}) still fails.
     */
    static final DescribedPredicate<JavaClass> ORIGIN =
            resideInAnyPackage("io.groupkeeper.assignor..", "io.groupkeeper.metrics..", "io.groupkeeper.spi..");

    private static final Set<String> CORE_VALUE_TYPES_IN_ROOT_PACKAGE =
            Set.of("io.groupkeeper.TopicPartition", "io.groupkeeper.Names");

    static final DescribedPredicate<JavaClass> TARGET = DescribedPredicate.describe(
            "core's value types in the root package (frozen cycle CORE_VALUE_TYPES_IN_ROOT_PACKAGE)",
            c -> CORE_VALUE_TYPES_IN_ROOT_PACKAGE.contains(c.getName()));

    private KnownCycles() {}
}
