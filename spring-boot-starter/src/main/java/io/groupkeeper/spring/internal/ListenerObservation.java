package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.RecordHandler;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * A Micrometer {@link Observation} named {@code groupkeeper.listener} around every call of a listener method: one per
 * record, one per batch (the batch's first record carries its trace context). Its context is a {@link ReceiverContext}
 * over the record's headers, so with Micrometer Tracing present the handler runs in a span that continues the trace of
 * the record's {@code traceparent} (W3C, or whatever propagation the application configured); with a meter registry
 * the observation is also a timer of the same name. Low-cardinality tags: {@code group}, {@code topic},
 * {@code listener.id}, {@code outcome} ({@code success} or {@code error}), {@code batch}.
 */
final class ListenerObservation {

    static final String NAME = "groupkeeper.listener";

    private final ObservationRegistry registry;
    private final String group;
    private final String listenerId;

    ListenerObservation(ObservationRegistry registry, String group, String listenerId) {
        this.registry = registry;
        this.group = group;
        this.listenerId = listenerId;
    }

    RecordHandler<Object, Object> observe(RecordHandler<Object, Object> handler) {
        if (registry.isNoop()) {
            return handler;
        }
        return r -> observe(r, false, () -> handler.handle(r));
    }

    BatchHandler<Object, Object> observe(BatchHandler<Object, Object> handler) {
        if (registry.isNoop()) {
            return handler;
        }
        return records -> observe(records.get(0), true, () -> handler.handle(records));
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private void observe(ConsumerRecord<Object, Object> carrier, boolean batch, Call call) throws Exception {
        ReceiverContext<ConsumerRecord<Object, Object>> context = new ReceiverContext<>(ListenerObservation::header);
        context.setCarrier(carrier);
        context.setRemoteServiceName("kafka");
        Observation observation = Observation.createNotStarted(NAME, () -> context, registry)
                .contextualName(carrier.topic() + " receive")
                .lowCardinalityKeyValues(KeyValues.of(
                        KeyValue.of("group", group),
                        KeyValue.of("topic", carrier.topic()),
                        KeyValue.of("listener.id", listenerId),
                        KeyValue.of("batch", Boolean.toString(batch))))
                .highCardinalityKeyValue("partition", Integer.toString(carrier.partition()))
                .highCardinalityKeyValue("offset", Long.toString(carrier.offset()))
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            call.run();
            observation.lowCardinalityKeyValue("outcome", "success");
        } catch (Exception | Error e) {
            observation.lowCardinalityKeyValue("outcome", "error");
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    private static String header(ConsumerRecord<Object, Object> record, String key) {
        Header h = record.headers().lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
