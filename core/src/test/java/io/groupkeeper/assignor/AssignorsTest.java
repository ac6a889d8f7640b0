package io.groupkeeper.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AssignorsTest {

    @Test
    void namesAreTheBuiltIns() {
        assertThat(Assignors.names()).containsExactly("range", "round-robin", "sticky");
        assertThatThrownBy(() -> Assignors.names().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void byNameReturnsTheMatchingAssignor() {
        assertThat(Assignors.byName("range")).isInstanceOf(RangeAssignor.class);
        assertThat(Assignors.byName("round-robin")).isInstanceOf(RoundRobinAssignor.class);
        assertThat(Assignors.byName("sticky")).isInstanceOf(StickyAssignor.class);
        for (String name : Assignors.names()) {
            assertThat(Assignors.byName(name).name()).isEqualTo(name);
            assertThat(Assignors.byName(name)).isSameAs(Assignors.byName(name));
        }
    }

    @Test
    void defaultIsSticky() {
        assertThat(Assignors.defaultAssignor()).isInstanceOf(StickyAssignor.class);
        assertThat(Assignors.defaultAssignor().name()).isEqualTo("sticky");
        assertThat(Assignors.defaultAssignor()).isSameAs(Assignors.byName("sticky"));
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> Assignors.byName("x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown assignor 'x'; known: range, round-robin, sticky");
        assertThatThrownBy(() -> Assignors.byName("Sticky"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown assignor 'Sticky'; known: range, round-robin, sticky");
        assertThatThrownBy(() -> Assignors.byName(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown assignor ''; known: range, round-robin, sticky");
        assertThatThrownBy(() -> Assignors.byName(null)).isInstanceOf(NullPointerException.class);
    }
}
