package io.groupkeeper.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatchers;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The library modules, the packages each one owns and its internal packages (not API: no other module may use them).
 * {@link ArchitectureTest#everyClassLivesInThePackagesOfItsModule} keeps this map true to the jars, so a new
 * package cannot slip past the rules unnoticed.
 */
enum Modules {
    /**
     * Its implementation ({@code internal}) is its own. The protocol between core and the store ({@code spi.internal}:
     * {@code GroupStore} and the claims, commits and snapshots it exchanges) is shared with the store's modules only:
     * zk-protocol (the store), zk-store and testkit (which run it); the logging context ({@code log.internal}: the MDC
     * keys and the helper that sets them) with the Kafka adapter only. Core's module-info exports each to them alone.
     */
    CORE(
            "groupkeeper-core",
            List.of(
                    "io.groupkeeper",
                    "io.groupkeeper.assignor..",
                    "io.groupkeeper.internal..",
                    "io.groupkeeper.log..",
                    "io.groupkeeper.metrics..",
                    "io.groupkeeper.spi..",
                    "io.groupkeeper.status.."),
            List.of("io.groupkeeper.internal.."),
            List.of(),
            List.of(
                    new Shared(
                            "io.groupkeeper.spi.internal..",
                            List.of(
                                    "io.groupkeeper.zkprotocol..",
                                    "io.groupkeeper.zookeeper..",
                                    "io.groupkeeper.testkit..")),
                    new Shared("io.groupkeeper.log.internal..", List.of("io.groupkeeper.kafka..")))),
    /**
     * The store written once over a session port. Its internal package (the store) is used by the two modules that
     * implement the port, and by no other: zk-store and testkit are its friends (its module-info exports it to them).
     */
    ZK_PROTOCOL(
            "groupkeeper-zk-protocol",
            List.of("io.groupkeeper.zkprotocol.."),
            List.of("io.groupkeeper.zkprotocol.internal.."),
            List.of("io.groupkeeper.zookeeper..", "io.groupkeeper.testkit..")),
    TESTKIT("groupkeeper-testkit", List.of("io.groupkeeper.testkit.."), List.of("io.groupkeeper.testkit.internal..")),
    ZK_STORE(
            "groupkeeper-zk-store",
            List.of("io.groupkeeper.zookeeper.."),
            List.of("io.groupkeeper.zookeeper.internal..")),
    EMBEDDED("groupkeeper-embedded", List.of("io.groupkeeper.embedded.."), List.of()),
    KAFKA_ADAPTER(
            "groupkeeper-kafka-adapter",
            List.of("io.groupkeeper.kafka.."),
            List.of("io.groupkeeper.kafka.internal..", "io.groupkeeper.kafka.container.internal..")),
    SPRING_BOOT_STARTER(
            "groupkeeper-spring-boot-starter",
            List.of("io.groupkeeper.spring.."),
            List.of("io.groupkeeper.spring.internal..")),
    CLI("groupkeeper-cli", List.of("io.groupkeeper.cli.."), List.of());

    /** Main classes of every library module, from their jars (or target/classes), no test classes. */
    static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> Arrays.stream(values()).anyMatch(m -> m.isAt(location.toString())))
            .importPackages("io.groupkeeper");

    final String artifactId;
    final List<String> packages;
    final List<String> internalPackages;
    /** Packages of other modules that may use this module's internal packages (qualified exports). */
    final List<String> friends;
    /** Packages shared with some other modules only (qualified exports), besides the internal ones. */
    final List<Shared> shared;

    Modules(String artifactId, List<String> packages, List<String> internalPackages) {
        this(artifactId, packages, internalPackages, List.of());
    }

    Modules(String artifactId, List<String> packages, List<String> internalPackages, List<String> friends) {
        this(artifactId, packages, internalPackages, friends, List.of());
    }

    Modules(
            String artifactId,
            List<String> packages,
            List<String> internalPackages,
            List<String> friends,
            List<Shared> shared) {
        this.artifactId = artifactId;
        this.packages = packages;
        this.internalPackages = internalPackages;
        this.friends = friends;
        this.shared = shared;
    }

    /** Packages of a module shared with the packages {@code with} (of other modules) only. */
    record Shared(String packages, List<String> with) {}

    /** The share of {@code packages}. */
    Shared shared(String packages) {
        return shared.stream()
                .filter(s -> s.packages().equals(packages))
                .findFirst()
                .orElseThrow();
    }

    /** This module's packages and its friends'. */
    String[] packagesAndFriends() {
        List<String> all = new java.util.ArrayList<>(packages);
        all.addAll(friends);
        return all.toArray(String[]::new);
    }

    String[] packages() {
        return packages.toArray(String[]::new);
    }

    String[] internalPackages() {
        return internalPackages.toArray(String[]::new);
    }

    /** A jar of this module ({@code groupkeeper-core-0.1.0-SNAPSHOT.jar}) or its classes directory in the reactor. */
    boolean isAt(String location) {
        String dir = artifactId.substring("groupkeeper-".length());
        return location.contains("/" + artifactId + "-") && !location.contains("-tests.jar")
                || location.contains("/" + dir + "/target/classes/");
    }

    boolean owns(String packageName) {
        return packages.stream().anyMatch(p -> PackageMatchers.of(p).test(packageName));
    }

    static Optional<Modules> from(JavaClass c) {
        return c.getSource()
                .flatMap(s -> Arrays.stream(values())
                        .filter(m -> m.isAt(s.getUri().toString()))
                        .findFirst());
    }
}
