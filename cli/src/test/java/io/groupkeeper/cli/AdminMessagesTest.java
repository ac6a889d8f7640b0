package io.groupkeeper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.AdminException.Remedy;
import org.junit.jupiter.api.Test;

class AdminMessagesTest {

    @Test
    void aRemedyIsSaidWithTheCliFlagInsteadOfTheLibraryWords() {
        AdminException e = new AdminException("group g has 1 live member(s) (m); stop them first", Remedy.FORCE, null);
        assertThat(e.getMessage()).isEqualTo("group g has 1 live member(s) (m); stop them first, or delete with force");
        assertThat(AdminMessages.of(e)).isEqualTo("group g has 1 live member(s) (m); stop them first, or use --force");
        assertThat(AdminMessages.of(new AdminException(
                        "the partitions of topic 'orders' are unknown (not in the topic " + "registry)",
                        Remedy.NAME_PARTITIONS,
                        "orders")))
                .endsWith("; name them: --topic orders:0,1,...");
    }

    @Test
    void everyRemedyNamesAFlagAndTheLibraryNamesNone() {
        for (Remedy r : Remedy.values()) {
            AdminException e = new AdminException("detail", r, "t");
            assertThat(e.getMessage()).as(r.name()).startsWith("detail").doesNotContain("--");
            assertThat(AdminMessages.of(e)).as(r.name()).startsWith("detail").contains("--");
        }
    }

    @Test
    void aMessageWithoutRemedyIsLeftAsItIs() {
        assertThat(AdminMessages.of(new AdminException("unknown group 'x'"))).isEqualTo("unknown group 'x'");
    }
}
