package io.groupkeeper.kafka.container.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The transactional sender answers only on the thread that runs its worker's loop, during a handler call. */
class TransactionalOutputTest {

    private static final ProducerRecord<Object, Object> OUT = new ProducerRecord<>("out", "k", "v");

    private final TransactionalOutput output = new TransactionalOutput(new StringSerializer(), new StringSerializer());

    @Test
    void aSendDuringTheCallOnTheOwningThreadIsHeld() {
        output.ownedBy(Thread.currentThread());
        output.begin();

        assertThat(output.send(OUT)).isNotDone(); // held until the call's records are flushed
    }

    @Test
    void aSendOutsideACallIsRefused() {
        output.ownedBy(Thread.currentThread());

        assertThatThrownBy(() -> output.send(OUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only on the handler's thread, during the handler call");
    }

    @Test
    void aSendFromAnotherThreadDuringTheCallIsRefused() {
        output.ownedBy(Thread.currentThread());
        output.begin();

        CompletableFuture<Throwable> elsewhere = CompletableFuture.supplyAsync(() -> {
            try {
                output.send(OUT);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });

        assertThat(elsewhere.join())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only on the handler's thread");
    }

    @Test
    void beforeItsWorkerRunsNoThreadOwnsIt() {
        output.begin();

        assertThatThrownBy(() -> output.send(OUT)).isInstanceOf(IllegalStateException.class);
    }
}
