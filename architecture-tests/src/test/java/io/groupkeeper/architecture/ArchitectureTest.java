package io.groupkeeper.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The boundaries the build enforces, over the main classes of every library module (see {@link Modules}). Each rule
 * was seen failing on a deliberate violation; see docs/design.md ("Boundaries the build enforces").
 */
class ArchitectureTest {

    private static final String INTERNAL = "..internal..";

    @Test
    void theRulesSeeEveryLibraryModule() {
        for (Modules m : Modules.values()) {
            assertThat(Modules.CLASSES.stream()
                            .filter(c -> Modules.from(c).orElse(null) == m)
                            .count())
                    .as("classes imported from %s", m.artifactId)
                    .isGreaterThan(0);
        }
    }

    @Test
    void everyClassLivesInThePackagesOfItsModule() {
        List<String> strays = new ArrayList<>();
        for (JavaClass c : Modules.CLASSES) {
            Modules m = Modules.from(c).orElseThrow(() -> new AssertionError("no module for " + c.getSource()));
            if (!m.owns(c.getPackageName())) {
                strays.add(c.getName() + " (in " + m.artifactId + ")");
            }
        }
        assertThat(strays)
                .as("classes outside their module's packages: extend Modules")
                .isEmpty();
    }

    @Test
    void coreImportsNoZooKeeperCuratorOrKafka() {
        coreImportsNoTechnology().check(Modules.CLASSES);
    }

    /** One rule per module that has internal packages: nothing outside the module may use them. */
    @TestFactory
    Stream<DynamicTest> noClassUsesAnotherModulesInternalPackage() {
        return Arrays.stream(Modules.values())
                .filter(m -> !m.internalPackages.isEmpty())
                .map(m -> DynamicTest.dynamicTest(
                        m.artifactId, () -> internalsStayInside(m).check(Modules.CLASSES)));
    }

    /** One rule per package a module shares with named friends (qualified exports): nobody else uses it. */
    @TestFactory
    Stream<DynamicTest> noClassUsesAPackageSharedWithOtherModules() {
        return Arrays.stream(Modules.values())
                .flatMap(m -> m.shared.stream()
                        .map(s -> DynamicTest.dynamicTest(
                                m.artifactId + " " + s.packages(),
                                () -> sharedStayWithFriends(m, s).check(Modules.CLASSES))));
    }

    /** The admin command sees the store through the admin's API only, never an internal package of any module. */
    @Test
    void cliUsesNoInternalPackage() {
        cliUsesNoInternals().check(Modules.CLASSES);
    }

    /**
     * The admin (zk-protocol's {@code io.groupkeeper.zkprotocol.admin}, over the session port, and zk-store's Curator
     * side of it, {@code io.groupkeeper.zookeeper.admin}) sees the store only through the admin package's own surface
     * ({@code AdminLayout}, {@code AdminNodes}), never through the store's internals, although its modules may.
     */
    @Test
    void theAdminSeesTheStoreThroughItsOwnSurface() {
        adminUsesOnlyTheAdminSurface().check(Modules.CLASSES);
    }

    @Test
    void publicApiSignaturesExposeNoInternalType() {
        apiExposesNoInternalType().check(Modules.CLASSES);
    }

    /**
     * No cycles between packages. An API package and its own {@code internal} package count as one slice: the API's
     * builder creates the implementation and the implementation implements the API (the bridge, as Curator's and
     * Kafka's consumer do); {@code internal} may not be used from anywhere else (the rule above). Every other pair of
     * packages, within a module or across modules, must point one way.
     */
    @Test
    void packagesHaveNoCycles() {
        noPackageCycles().check(Modules.CLASSES);
    }

    // ------------------------------------------------------------------ the rules

    static ArchRule coreImportsNoTechnology() {
        return noClasses()
                .that()
                .resideInAnyPackage(Modules.CORE.packages())
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.zookeeper..", "org.apache.curator..", "org.apache.kafka..", "kafka..")
                .because("core is the domain and the store SPI; stores and adapters bring their own technology");
    }

    static ArchRule internalsStayInside(Modules m) {
        return noClasses()
                .that()
                .resideOutsideOfPackages(m.packagesAndFriends())
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(m.internalPackages())
                .because(m.artifactId + "'s internal packages are not API: they change without notice");
    }

    static ArchRule sharedStayWithFriends(Modules m, Modules.Shared s) {
        List<String> allowed = new ArrayList<>(m.packages);
        allowed.addAll(s.with());
        return noClasses()
                .that()
                .resideOutsideOfPackages(allowed.toArray(String[]::new))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(s.packages())
                .because(m.artifactId + " shares " + s.packages() + " with " + s.with() + " only (its"
                        + " module-info exports it to those modules): it is not API and changes without notice");
    }

    static ArchRule cliUsesNoInternals() {
        return noClasses()
                .that()
                .resideInAnyPackage(Modules.CLI.packages())
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(INTERNAL)
                .because("the admin command uses the admin's API (io.groupkeeper.zkprotocol.admin), which says what it"
                        + " may rely on; internal packages change without notice");
    }

    static ArchRule adminUsesOnlyTheAdminSurface() {
        return noClasses()
                .that()
                .resideInAnyPackage("io.groupkeeper.zkprotocol.admin..", "io.groupkeeper.zookeeper.admin..")
                // the surface itself: the one place the admin's package spells what the store spells
                .and()
                .haveNameNotMatching("io\\.groupkeeper\\.zkprotocol\\.admin\\.Admin(Layout|Nodes)(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(Modules.ZK_PROTOCOL.internalPackages())
                .because("the admin sees the store through io.groupkeeper.zkprotocol.admin (layout, bodies, group"
                        + " creation, the transaction size rule): the store's internals stay free to change");
    }

    static ArchRule apiExposesNoInternalType() {
        return classes()
                .that(areApi())
                .should(exposeNoInternalType())
                .because("a user who can see a type can depend on it; internal types must stay free to change");
    }

    static ArchRule noPackageCycles() {
        return slices().assignedFrom(PACKAGE_WITH_ITS_INTERNALS)
                .should()
                .beFreeOfCycles()
                .ignoreDependency(KnownCycles.ORIGIN, KnownCycles.TARGET);
    }

    static final SliceAssignment PACKAGE_WITH_ITS_INTERNALS = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String p = c.getPackageName();
            if (!p.startsWith("io.groupkeeper")) {
                return SliceIdentifier.ignore();
            }
            int internal = p.indexOf(".internal");
            return SliceIdentifier.of(internal < 0 ? p : p.substring(0, internal));
        }

        @Override
        public String getDescription() {
            return "packages of io.groupkeeper, each with its own internal package";
        }
    };

    // ------------------------------------------------------------------ the API rule

    /** Public (or protected, which a subclass sees), in a non-internal package, and every enclosing class public too. */
    static DescribedPredicate<JavaClass> areApi() {
        return DescribedPredicate.describe("are API (public, outside internal packages)", ArchitectureTest::isApi);
    }

    static boolean isApi(JavaClass c) {
        if (c.getPackageName().contains(".internal") || c.isAnonymousClass() || c.isLocalClass()) {
            return false;
        }
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC)
                    && !k.getModifiers().contains(JavaModifier.PROTECTED)) {
                return false;
            }
        }
        return true;
    }

    static boolean isInternal(JavaClass c) {
        return c.getPackageName().startsWith("io.groupkeeper")
                && (c.getPackageName().endsWith(".internal")
                        || c.getPackageName().contains(".internal."));
    }

    static ArchCondition<JavaClass> exposeNoInternalType() {
        return new ArchCondition<>("expose no internal type in a public signature") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<String> found = new ArrayList<>();
                exposed(c.getSuperclass().stream(), found, c.getName() + " extends ");
                exposed(c.getInterfaces().stream(), found, c.getName() + " implements ");
                for (JavaMember m : visibleMembers(c)) {
                    Set<JavaType> types = new LinkedHashSet<>();
                    if (m instanceof JavaField f) {
                        types.add(f.getType());
                    } else if (m instanceof JavaCodeUnit u) {
                        types.add(u.getReturnType());
                        types.addAll(u.getParameterTypes());
                        u.getThrowsClause().getTypes().forEach(types::add);
                    }
                    exposed(types.stream(), found, m.getFullName() + " exposes ");
                }
                for (String f : found) {
                    boolean allowed = KnownApiLeaks.ALLOWED.stream().anyMatch(f::startsWith);
                    events.add(new SimpleConditionEvent(c, allowed, f));
                }
            }
        };
    }

    private static List<JavaMember> visibleMembers(JavaClass c) {
        List<JavaMember> out = new ArrayList<>();
        Stream.of(c.getFields(), c.getMethods(), c.getConstructors())
                .flatMap(Set::stream)
                .filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC)
                        || m.getModifiers().contains(JavaModifier.PROTECTED))
                .filter(m -> !m.getModifiers().contains(JavaModifier.SYNTHETIC)
                        && !m.getModifiers().contains(JavaModifier.BRIDGE))
                .forEach(out::add);
        return out;
    }

    private static void exposed(Stream<? extends JavaType> types, List<String> found, String prefix) {
        types.flatMap(t -> t.getAllInvolvedRawTypes().stream())
                .filter(ArchitectureTest::isInternal)
                .distinct()
                .forEach(t -> found.add(prefix + t.getName()));
    }
}
