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
    CORE("groupkeeper-core", List.of("io.groupkeeper", "io.groupkeeper.assignor..", "io.groupkeeper.internal..",
            "io.groupkeeper.metrics..", "io.groupkeeper.spi..", "io.groupkeeper.status.."),
            List.of("io.groupkeeper.internal..")),
    TESTKIT("groupkeeper-testkit", List.of("io.groupkeeper.testkit.."), List.of("io.groupkeeper.testkit.internal..")),
    ZK_STORE("groupkeeper-zk-store", List.of("io.groupkeeper.zookeeper.."),
            List.of("io.groupkeeper.zookeeper.internal..")),
    EMBEDDED("groupkeeper-embedded", List.of("io.groupkeeper.embedded.."), List.of()),
    KAFKA_ADAPTER("groupkeeper-kafka-adapter", List.of("io.groupkeeper.kafka.."),
            List.of("io.groupkeeper.kafka.internal..", "io.groupkeeper.kafka.container.internal..")),
    SPRING_BOOT_STARTER("groupkeeper-spring-boot-starter", List.of("io.groupkeeper.spring.."),
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

    Modules(String artifactId, List<String> packages, List<String> internalPackages) {
        this.artifactId = artifactId;
        this.packages = packages;
        this.internalPackages = internalPackages;
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
        return location.contains("/" + artifactId + "-") && !location.contains("-tests.jar") || location.contains("/" + dir + "/target/classes/");
    }

    boolean owns(String packageName) {
        return packages.stream().anyMatch(p -> PackageMatchers.of(p).test(packageName));
    }

    static Optional<Modules> from(JavaClass c) {
        return c.getSource().flatMap(s -> Arrays.stream(values()).filter(m -> m.isAt(s.getUri().toString()))
                .findFirst());
    }
}
