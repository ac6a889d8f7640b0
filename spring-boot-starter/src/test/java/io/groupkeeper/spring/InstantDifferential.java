package io.groupkeeper.spring;

import static io.groupkeeper.spring.SharedServers.WAIT;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.spring.differential.AnnotationSwap;
import io.groupkeeper.spring.differential.InstantPayloads;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** One run of {@link InstantPayloads} for {@link DifferentialIT}: what the listener received, sorted. */
final class InstantDifferential {

    private InstantDifferential() {}

    static List<String> run(boolean onGroupKeeper, List<String> values) {
        Class<?> asWritten = AnnotationSwap.compile("instants.Listener", InstantPayloads.LISTENER);
        Class<?> listener = onGroupKeeper ? AnnotationSwap.toGroupKeeper(asWritten) : asWritten;
        String topic = SharedServers.topic(1);
        try (var ctx = new SpringApplicationBuilder(InstantPayloads.class, listener)
                .web(WebApplicationType.NONE)
                .properties(
                        "groupkeeper.zookeeper.connect=" + SharedServers.get().zkConnectString(),
                        "spring.kafka.bootstrap-servers=" + SharedServers.get().bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "groupkeeper.listener.stop-deadline=5s",
                        "app.topic=" + topic,
                        "app.group=" + SharedServers.name("instant"))
                .run()) {
            InstantPayloads.Observed observed = ctx.getBean(InstantPayloads.Observed.class);
            for (String v : values) {
                SharedServers.send(topic, 0, v);
            }
            await().atMost(WAIT).until(() -> observed.received.size() >= values.size());
            List<String> received = new ArrayList<>(observed.received);
            received.sort(null);
            return received;
        }
    }
}
