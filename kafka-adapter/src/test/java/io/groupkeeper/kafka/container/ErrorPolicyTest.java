package io.groupkeeper.kafka.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.spi.CoordinationStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** Rule matching, backoff arithmetic and the builder's fail-fast checks (no servers). */
class ErrorPolicyTest {

    @Test
    void theNearestSuperclassWinsWhateverTheDeclarationOrderThenCausesThenOtherwise() {
        ErrorPolicy p = ErrorPolicy.builder()
                .on(RuntimeException.class, ErrorAction.stopPartition())
                .on(IllegalArgumentException.class, ErrorAction.skip())
                .on(IOException.class, ErrorAction.retry(5, Backoff.none()).thenDeadLetter())
                .otherwise(ErrorAction.deadLetter())
                .build();
        assertThat(p.actionFor(new NumberFormatException()).recovery()).isEqualTo(Recovery.SKIP);
        assertThat(p.actionFor(new IllegalStateException()).recovery()).isEqualTo(Recovery.STOP_PARTITION);
        assertThat(p.actionFor(new Exception("checked")).recovery()).isEqualTo(Recovery.DEAD_LETTER);
        // UncheckedIOException is a RuntimeException itself: its own class hierarchy matches before its cause.
        assertThat(p.actionFor(new UncheckedIOException(new IOException())).recovery())
                .isEqualTo(Recovery.STOP_PARTITION);
        assertThat(p.actionFor(new Exception(new IOException())).maxAttempts()).isEqualTo(5);
        assertThat(p.mayDeadLetter()).isTrue();
        assertThat(ErrorPolicy.builder()
                        .otherwise(ErrorAction.skip())
                        .deserializationFailure(Recovery.SKIP)
                        .build()
                        .mayDeadLetter())
                .isFalse();
        assertThatThrownBy(() -> ErrorPolicy.builder()
                        .on(IOException.class, ErrorAction.skip())
                        .on(IOException.class, ErrorAction.deadLetter()))
                .hasMessageContaining("java.io.IOException has two rules");
        assertThat(Recovery.parse("stop-partition")).isEqualTo(Recovery.STOP_PARTITION);
        assertThatThrownBy(() -> Recovery.parse("retry")).hasMessageContaining("unknown recovery 'retry'");
    }

    @Test
    void backoffsGrowToTheirMaximumAndBadOnesFail() {
        Backoff b = Backoff.exponential(Duration.ofMillis(100), 3, Duration.ofMillis(500));
        assertThat(b.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(b.delayAfter(2)).isEqualTo(Duration.ofMillis(300));
        assertThat(b.delayAfter(3)).isEqualTo(Duration.ofMillis(500));
        assertThat(Backoff.fixed(Duration.ofSeconds(1)).delayAfter(7)).isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), 2, Duration.ofSeconds(1)))
                .hasMessageContaining("below the initial backoff");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1)))
                .hasMessageContaining("multiplier must be >= 1");
        assertThatThrownBy(() -> ErrorAction.retry(0, Backoff.none())).hasMessageContaining("attempts must be >= 1");
    }

    @Test
    void theBuilderNamesWhatIsMissingOrConflicting() {
        // Never started: the builder only needs a keeper to hand to the consumers.
        CoordinationStore unused = (CoordinationStore) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {CoordinationStore.class}, (proxy, m, a) -> null);
        GroupKeeper keeper = GroupKeeper.builder().store(unused).build();
        ListenerContainerBuilder<String, String> ok = ListenerContainer.<String, String>builder(keeper)
                .group("billing")
                .topics("orders")
                .kafkaProperty("bootstrap.servers", "127.0.0.1:9")
                .deserializers(new StringDeserializer(), new StringDeserializer());
        assertThatThrownBy(ok::build)
                .hasMessageContaining("exactly one of recordHandler, batchHandler and asyncHandler");
        ok.recordHandler(r -> {});
        assertThatThrownBy(() -> ok.batchHandler(b -> {}).build())
                .hasMessageContaining("exactly one of recordHandler, batchHandler and asyncHandler");
        assertThatThrownBy(() -> ListenerContainer.<String, String>builder(keeper)
                        .group("billing")
                        .topics("orders")
                        .recordHandler(r -> {})
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .build())
                .hasMessageContaining("bootstrap.servers is required");
        assertThatThrownBy(() -> ListenerContainer.<String, String>builder(keeper)
                        .group("billing")
                        .topics("orders", "orders.DLT")
                        .kafkaProperty("bootstrap.servers", "x:1")
                        .recordHandler(r -> {})
                        .deserializers(new StringDeserializer(), new StringDeserializer())
                        .deadLetterTopic("orders.DLT")
                        .build())
                .hasMessageContaining("it must be a topic the container does not consume");
        assertThatThrownBy(() -> ok.concurrency(0)).hasMessageContaining("concurrency must be >= 1");
        assertThatThrownBy(() -> ok.watchdog(Duration.ZERO)).hasMessageContaining("watchdog must be positive");
        assertThatThrownBy(() -> ListenerContainer.<String, String>builder(keeper)
                        .topics("orders")
                        .build())
                .hasMessageContaining("group is required");
    }
}
