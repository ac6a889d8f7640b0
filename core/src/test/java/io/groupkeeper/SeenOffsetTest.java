package io.groupkeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SeenOffsetTest {

    @Test
    void notSeenIsNotSeenWithoutAnOffset() {
        assertThat(SeenOffset.notSeen().isSeen()).isFalse();
        assertThat(SeenOffset.none().isSeen()).isTrue();
        assertThat(SeenOffset.none()).isNotEqualTo(SeenOffset.notSeen());
        assertThatThrownBy(() -> SeenOffset.notSeen().offset())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not owned");
    }

    @Test
    void aSeenOffsetCarriesItsValue() {
        assertThat(SeenOffset.of(59).offset()).isEqualTo(OptionalLong.of(59));
        assertThat(SeenOffset.none().offset()).isEmpty();
        assertThat(SeenOffset.of(OptionalLong.of(7))).isEqualTo(SeenOffset.of(7));
        assertThat(SeenOffset.of(OptionalLong.empty())).isEqualTo(SeenOffset.none());
        assertThat(SeenOffset.of(7)).hasSameHashCodeAs(SeenOffset.of(7)).hasToString("seen 7");
    }

    @Test
    void aNegativeOffsetIsRefused() {
        assertThatThrownBy(() -> SeenOffset.of(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
