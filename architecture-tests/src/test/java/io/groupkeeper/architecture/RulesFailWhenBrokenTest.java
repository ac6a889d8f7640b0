package io.groupkeeper.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.cli.violation.CliUsesCoreInternal;
import io.groupkeeper.cli.violation.CliUsesLogContext;
import io.groupkeeper.cli.violation.CliUsesZkInternal;
import io.groupkeeper.internal.violation.CoreUsesZooKeeper;
import io.groupkeeper.kafka.violation.AdapterUsesLogContext;
import io.groupkeeper.kafka.violation.AdapterUsesStoreProtocol;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.SpiUsesFacadeViolation;
import io.groupkeeper.violation.Leaky;
import io.groupkeeper.violation.a.A;
import io.groupkeeper.violation.b.B;
import io.groupkeeper.zkprotocol.admin.violation.AdminUsesStoreInternal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link ArchitectureTest} against a deliberate violation (test classes of this module, which the real
 * rules never import): a rule that cannot fail here would pass on anything.
 */
class RulesFailWhenBrokenTest {

    private static JavaClasses of(Class<?>... classes) {
        return new ClassFileImporter().importClasses(classes);
    }

    private static void assertViolated(EvaluationResult result, String expected) {
        assertThat(result.hasViolation()).as("rule violated").isTrue();
        assertThat(result.getFailureReport().toString()).contains(expected);
    }

    @Test
    void coreThatImportsZooKeeperFails() {
        assertViolated(
                ArchitectureTest.coreImportsNoTechnology().evaluate(of(CoreUsesZooKeeper.class)),
                "org.apache.zookeeper.ZooKeeper");
    }

    @Test
    void aModuleThatUsesAnotherModulesInternalsFails() {
        JavaClasses cli = of(CliUsesZkInternal.class);
        assertViolated(
                ArchitectureTest.internalsStayInside(Modules.ZK_STORE).evaluate(cli),
                "io.groupkeeper.zookeeper.internal.ZkWire");
        assertViolated(
                ArchitectureTest.internalsStayInside(Modules.ZK_PROTOCOL).evaluate(cli),
                "io.groupkeeper.zkprotocol.internal.ZkPaths");
        assertThat(ArchitectureTest.internalsStayInside(Modules.CORE)
                        .evaluate(cli)
                        .hasViolation())
                .as("the cli uses no core internals")
                .isFalse();
    }

    @Test
    void aModuleThatUsesThePackagesCoreSharesWithTheStoreFails() {
        Modules.Shared protocol = Modules.CORE.shared("io.groupkeeper.spi.internal..");
        assertViolated(
                ArchitectureTest.sharedStayWithFriends(Modules.CORE, protocol)
                        .evaluate(of(AdapterUsesStoreProtocol.class)),
                "io.groupkeeper.spi.internal.GroupStore");
        assertThat(ArchitectureTest.sharedStayWithFriends(Modules.CORE, protocol)
                        .evaluate(of(CliUsesZkInternal.class))
                        .hasViolation())
                .as("the cli uses none of them")
                .isFalse();
    }

    @Test
    void aModuleOtherThanTheAdapterThatUsesCoresLoggingContextFails() {
        Modules.Shared log = Modules.CORE.shared("io.groupkeeper.log.internal..");
        assertViolated(
                ArchitectureTest.sharedStayWithFriends(Modules.CORE, log).evaluate(of(CliUsesLogContext.class)),
                "io.groupkeeper.log.internal.LogContext");
        assertThat(ArchitectureTest.sharedStayWithFriends(Modules.CORE, log)
                        .evaluate(of(AdapterUsesLogContext.class, CliUsesZkInternal.class))
                        .hasViolation())
                .as("the adapter may")
                .isFalse();
    }

    @Test
    void aCliThatUsesAnyInternalPackageFails() {
        assertViolated(
                ArchitectureTest.cliUsesNoInternals().evaluate(of(CliUsesZkInternal.class)),
                "io.groupkeeper.zookeeper.internal.ZkWire");
        assertViolated(
                ArchitectureTest.cliUsesNoInternals().evaluate(of(CliUsesCoreInternal.class)),
                "io.groupkeeper.internal.LiveMemberIds");
    }

    @Test
    void anAdminThatUsesTheStoresInternalsFails() {
        assertViolated(
                ArchitectureTest.adminUsesOnlyTheAdminSurface().evaluate(of(AdminUsesStoreInternal.class)),
                "io.groupkeeper.zkprotocol.internal.NodeCodec");
    }

    @Test
    void anInternalTypeInAPublicSignatureFails() {
        assertViolated(
                ArchitectureTest.apiExposesNoInternalType().evaluate(of(Leaky.class)),
                "io.groupkeeper.violation.Leaky.hidden() exposes io.groupkeeper.violation.internal.Hidden");
    }

    @Test
    void aChangedPublicApiShowsAsTheLinesAddedAndRemoved() {
        List<String> now = PublicApiTest.signatures(new ClassFileImporter().importClass(Leaky.class));
        assertThat(now).contains("io.groupkeeper.violation.Leaky : public class");
        String added =
                now.stream().filter(l -> l.contains(" hidden()")).findFirst().orElseThrow();
        List<String> reviewed = new java.util.ArrayList<>(now);
        reviewed.remove(added);
        reviewed.add("io.groupkeeper.violation.Leaky : public void gone()");
        assertThat(PublicApiTest.diff(reviewed, now))
                .isEqualTo("+ " + added + System.lineSeparator()
                        + "- io.groupkeeper.violation.Leaky : public void gone()");
        assertThat(PublicApiTest.diff(now, now)).as("no change").isEmpty();
    }

    @Test
    void aCycleBetweenTwoPackagesFails() {
        assertViolated(ArchitectureTest.noPackageCycles().evaluate(of(A.class, B.class)), "io.groupkeeper.violation.a");
    }

    @Test
    void theFrozenCoreCycleHidesNoOtherEdge() {
        // GroupKeeper -> spi.CoordinationStore, and spi -> TopicPartition (frozen) is ignored ...
        assertThat(ArchitectureTest.noPackageCycles()
                        .evaluate(of(GroupKeeper.class, CoordinationStore.class, TopicPartition.class))
                        .hasViolation())
                .as("the frozen edge alone")
                .isFalse();
        // ... but spi -> GroupKeeper is not.
        assertViolated(
                ArchitectureTest.noPackageCycles()
                        .evaluate(of(GroupKeeper.class, CoordinationStore.class, SpiUsesFacadeViolation.class)),
                "SpiUsesFacadeViolation");
    }
}
