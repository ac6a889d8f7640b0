package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.TransactionalSender;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.slf4j.LoggerFactory;

/**
 * The producer a transactional {@code KafkaTemplate} gets inside a transactional {@code @GroupKeeperListener} call
 * (bound by {@link ListenerTransactionTemplates}): each record goes to the container's {@link TransactionalSender} of
 * the call on this thread, so it commits in one Kafka transaction with the input position, or is dropped when the
 * call throws. The transaction is the container's: begin, commit and abort here are refused. A template's callback (its
 * {@code CompletableFuture}, its {@code ProducerListener}) runs once the record was sent into the transaction after
 * the call returned, or dropped, on one thread {@code groupkeeper-template-callbacks} in the order of the sends.
 */
final class ListenerTransactionProducer<K, V> implements Producer<K, V> {

    /** How long a callback waits for its record's call to end before it reports a timeout. */
    private static final Duration CALLBACK_WAIT = Duration.ofMinutes(5);

    /** One thread, started on demand and ended when idle: callbacks in the order of the sends. */
    private static final Executor CALLBACKS = callbacks();

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
        return send(record, null);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback) {
        TransactionalSender<K, V> sender = HandlerContext.sender();
        Future<RecordMetadata> sent = sender.send(record);
        if (callback != null) {
            CALLBACKS.execute(() -> complete(sent, callback));
        }
        return sent;
    }

    private static void complete(Future<RecordMetadata> sent, Callback callback) {
        RecordMetadata metadata = null;
        Exception failure = null;
        try {
            metadata = sent.get(CALLBACK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            failure = e.getCause() instanceof Exception c ? c : e;
        } catch (TimeoutException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = e;
        }
        try {
            callback.onCompletion(metadata, failure);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(ListenerTransactionProducer.class).warn("a KafkaTemplate callback failed", e);
        }
    }

    /** Nothing to flush: the records go into the transaction when the listener call returns. */
    @Override
    public void flush() {}

    @Override
    public void initTransactions() {
        throw owned("initTransactions");
    }

    @Override
    public void beginTransaction() {
        throw owned("beginTransaction");
    }

    @Override
    public void sendOffsetsToTransaction(
            Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
        throw owned("sendOffsetsToTransaction");
    }

    @Override
    public void commitTransaction() {
        throw owned("commitTransaction");
    }

    @Override
    public void abortTransaction() {
        throw owned("abortTransaction");
    }

    private static UnsupportedOperationException owned(String what) {
        return new UnsupportedOperationException(what + ": inside a transactional @GroupKeeperListener call the "
                + "transaction is the listener container's (it commits the sends with the input position when the "
                + "call returns, and drops them when it throws)");
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        throw new UnsupportedOperationException(
                "partitionsFor inside a transactional @GroupKeeperListener call: " + "use an Admin client");
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return Map.of(); // the container's producers are bound to the meter registry themselves
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {}

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {}

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        throw new UnsupportedOperationException("clientInstanceId inside a transactional @GroupKeeperListener call");
    }

    /** The container owns the producer: a template's close after its transaction is a no-op. */
    @Override
    public void close() {}

    @Override
    public void close(Duration timeout) {}

    private static Executor callbacks() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "groupkeeper-template-callbacks");
            t.setDaemon(true);
            return t;
        });
        return e;
    }
}
