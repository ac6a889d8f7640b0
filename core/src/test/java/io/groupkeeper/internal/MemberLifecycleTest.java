package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.log.internal.LogContext;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The member's states and transitions ({@link MemberState}) as {@link MemberLifecycle} enforces them. */
class MemberLifecycleTest {

    /** A way to reach each state from LATENT by declared transitions. */
    private static final Map<MemberState, List<MemberState>> PATHS = Map.of(
            MemberState.LATENT, List.of(),
            MemberState.JOINING, List.of(MemberState.JOINING),
            MemberState.REGISTERING, List.of(MemberState.JOINING, MemberState.REGISTERING),
            MemberState.JOINED, List.of(MemberState.JOINING, MemberState.REGISTERING, MemberState.JOINED),
            MemberState.LEAVING, List.of(MemberState.JOINING, MemberState.LEAVING),
            MemberState.CLOSED, List.of(MemberState.CLOSED));

    private static MemberLifecycle at(MemberState state) {
        MemberLifecycle l = new MemberLifecycle(new LogContext("g", "m"));
        PATHS.get(state).forEach(l::moveTo);
        assertThat(l.state()).isEqualTo(state);
        return l;
    }

    @Test
    void everyDeclaredTransitionIsMadeAndEveryOtherIsRefused() {
        List<String> made = new ArrayList<>();
        for (MemberState from : MemberState.values()) {
            for (MemberState to : MemberState.values()) {
                MemberLifecycle l = at(from);
                if (from.next().contains(to)) {
                    l.moveTo(to);
                    assertThat(l.state()).isEqualTo(to);
                    made.add(from + "->" + to);
                } else {
                    assertThatThrownBy(() -> l.moveTo(to))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("member g/m: no transition " + from + " -> " + to);
                    assertThat(l.state())
                            .as("a refused transition changes nothing")
                            .isEqualTo(from);
                }
            }
        }
        assertThat(made)
                .containsExactlyInAnyOrder(
                        "LATENT->JOINING",
                        "LATENT->CLOSED",
                        "JOINING->REGISTERING",
                        "JOINING->LEAVING",
                        "JOINING->CLOSED",
                        "REGISTERING->JOINED",
                        "REGISTERING->LEAVING",
                        "JOINED->LEAVING",
                        "LEAVING->CLOSED");
    }

    @Test
    void onlyAStartedMemberThatIsNotLeavingIsActive() {
        assertThat(EnumSet.allOf(MemberState.class).stream().filter(MemberState::isActive))
                .containsExactly(MemberState.JOINING, MemberState.REGISTERING, MemberState.JOINED);
    }

    @Test
    void aJoinStepOvertakenByACloseIsNotMadeButTheLeaveKnowsTheIdWasTaken() {
        MemberLifecycle l = at(MemberState.JOINING);
        l.moveTo(MemberState.LEAVING); // a user thread closes while the lane takes the id
        assertThat(l.holdsId()).as("closed before the id was taken").isFalse();

        assertThat(l.advance(MemberState.JOINING, MemberState.REGISTERING)).isFalse();
        assertThat(l.state()).isEqualTo(MemberState.LEAVING);
        assertThat(l.holdsId())
                .as("the join took the id meanwhile: the leave must give it back")
                .isTrue();
        assertThat(l.advance(MemberState.REGISTERING, MemberState.JOINED)).isFalse();
        assertThat(l.state()).isEqualTo(MemberState.LEAVING);
    }

    @Test
    void aJoinStepFromAStateNoCloseExplainsIsRefused() {
        MemberLifecycle l = at(MemberState.JOINED);
        assertThatThrownBy(() -> l.advance(MemberState.JOINING, MemberState.REGISTERING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("member g/m: no transition JOINED -> REGISTERING");
        assertThatThrownBy(() -> at(MemberState.JOINING).advance(MemberState.JOINING, MemberState.JOINED))
                .as("not declared at all")
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("member g/m: no transition JOINING -> JOINED");
    }

    @Test
    void aMemberHoldsItsIdFromRegistrationToTheEndOfItsLeave() {
        assertThat(at(MemberState.JOINING).holdsId()).isFalse();
        assertThat(at(MemberState.REGISTERING).holdsId()).isTrue();
        assertThat(at(MemberState.JOINED).holdsId()).isTrue();
        MemberLifecycle leaving = at(MemberState.JOINED);
        leaving.moveTo(MemberState.LEAVING);
        assertThat(leaving.holdsId()).isTrue();
        leaving.moveTo(MemberState.CLOSED);
        assertThat(leaving.holdsId()).isFalse();
    }
}
