package io.groupkeeper.kafka.container;

import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Handles one record asynchronously: called on the container's polling thread, it starts the work and returns at once
 * with a stage that completes when the record is processed (normally: processed; exceptionally: the failure goes to the
 * container's {@link ErrorPolicy}, as a {@link RecordHandler}'s exception does). Throwing instead of returning a stage
 * counts as a failed attempt too. The container has at most {@linkplain ListenerContainerBuilder#parallelism
 * parallelism} records in flight per member, whatever threads the stages complete on, so in-flight work is not bounded
 * by threads. Do not block in {@code handle}: it holds up the polling thread. {@link HandlerContext} answers during the
 * call to {@code handle} only (take the fencing token there), not in the work it starts on other threads; the
 * watchdog does not watch asynchronous work.
 */
@FunctionalInterface
public interface AsyncRecordHandler<K, V> {
    CompletionStage<Void> handle(ConsumerRecord<K, V> record) throws Exception;
}
