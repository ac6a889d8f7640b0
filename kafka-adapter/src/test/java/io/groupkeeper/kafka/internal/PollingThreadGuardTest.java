package io.groupkeeper.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PollingThreadGuardTest {

    private final PollingThreadGuard guard = new PollingThreadGuard("g");

    @Test
    void anotherThreadIsRefusedWhileOneIsInsideEvenNestedAndLetInOnceItLeaves() {
        guard.enter();
        guard.enter(); // the user's listener calling commitSync() inside poll()
        guard.exit();

        assertThat(fromAnotherThread())
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("group g");

        guard.exit();
        assertThat(fromAnotherThread()).isNull();
    }

    private Throwable fromAnotherThread() {
        return CompletableFuture.supplyAsync(() -> {
                    try {
                        guard.enter();
                        guard.exit();
                        return null;
                    } catch (RuntimeException e) {
                        return (Throwable) e;
                    }
                })
                .join();
    }
}
