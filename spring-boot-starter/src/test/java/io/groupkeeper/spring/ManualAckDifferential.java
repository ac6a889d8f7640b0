package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.AnnotationSwap;
import io.groupkeeper.spring.differential.ManualAcks;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * One run of {@link ManualAcks} for {@link DifferentialIT}: the application started, fed {@code values} on one
 * partition, stopped once it received {@code expected} records, then started again (same group): what each start
 * received, in order. The second start ends when it received the last value (what it redelivers comes before it).
 */
final class ManualAckDifferential {

    private ManualAckDifferential() {}

    record Observed(List<String> firstStart, List<String> afterRestart) {}

    static Observed run(boolean onGroupKeeper, String ackMode, List<String> values, int expected) {
        Class<?> asWritten = AnnotationSwap.compile("manualacks.Listener", ManualAcks.LISTENER);
        Class<?> listener = onGroupKeeper ? AnnotationSwap.toGroupKeeper(asWritten) : asWritten;
        String topic = SharedServers.topic(1);
        String group = SharedServers.name("acks");
        List<String> first;
        try (var ctx = start(listener, topic, group, ackMode)) {
            ManualAcks.Observed observed = ctx.getBean(ManualAcks.Observed.class);
            for (String v : values) {
                SharedServers.send(topic, 0, v);
            }
            await().atMost(WAIT).until(() -> observed.received.size() >= expected);
            first = List.copyOf(observed.received);
        }
        try (var ctx = start(listener, topic, group, ackMode)) {
            ManualAcks.Observed observed = ctx.getBean(ManualAcks.Observed.class);
            String last = values.get(values.size() - 1);
            await().atMost(WAIT).until(() -> observed.received.contains(last));
            return new Observed(first, List.copyOf(observed.received));
        }
    }

    private static org.springframework.context.ConfigurableApplicationContext start(
            Class<?> listener, String topic, String group, String ackMode) {
        return new SpringApplicationBuilder(ManualAcks.class, listener)
                .web(WebApplicationType.NONE)
                .properties(
                        "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "spring.kafka.listener.ack-mode=" + ackMode,
                        "groupkeeper.listener.stop-deadline=5s",
                        "app.topic=" + topic,
                        "app.group=" + group)
                .run();
    }
}
