package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** After a request lost its connection, requests wait for the next connection; a late report holds nothing back. */
class LostConnectionGateTest {

    private final LostConnectionGate gate = new LostConnectionGate();

    @Test
    void aLostRequestHoldsTheNextOnesBackUntilTheNextConnection() {
        long sentIn = gate.enter();
        assertThat(sentIn).isNotNegative();

        gate.lost(sentIn);
        assertThat(gate.enter())
                .as("held back: the handle may still say CONNECTED")
                .isNegative();

        gate.connected();
        assertThat(gate.enter()).isGreaterThan(sentIn);
    }

    @Test
    void aLossReportedAfterTheReconnectionItBelongsToHoldsNothingBack() {
        long sentIn = gate.enter();
        gate.connected(); // reconnected before the failed request's thread got to report its loss

        gate.lost(sentIn);
        assertThat(gate.enter()).isNotNegative();
    }

    @Test
    void anOlderLossNeverUndoesANewerOne() {
        long first = gate.enter();
        gate.connected();
        long second = gate.enter();

        gate.lost(second);
        gate.lost(first);
        assertThat(gate.enter()).isNegative();
    }
}
