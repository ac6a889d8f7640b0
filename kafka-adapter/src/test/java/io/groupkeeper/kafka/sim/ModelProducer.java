package io.groupkeeper.kafka.sim;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * A transactional producer of the {@link KafkaModel}, with {@code KafkaProducer}'s client-side states: initialised
 * (an epoch), in a transaction, an abortable error (a rejected send: only an abort is allowed), a commit that timed out
 * (only a retried commit is allowed), fenced (fatal: every transactional call throws {@code ProducerFencedException}).
 * Sends land at once (their outputs stay invisible until the commit); the other calls take a round trip.
 */
public final class ModelProducer implements Producer<Object, Object> {

    private final KafkaModel kafka;
    private final String transactionalId;
    private int epoch = -1;
    private boolean inTransaction;
    private boolean abortableError;
    /** A commit that timed out: only commitTransaction() may be called (again). */
    private boolean commitMustRetry;

    private boolean fenced;
    private boolean closed;

    public ModelProducer(KafkaModel kafka, String transactionalId) {
        this.kafka = kafka;
        this.transactionalId = transactionalId;
    }

    @Override
    public void initTransactions() {
        requireOpen();
        if (transactionalId == null) {
            throw new IllegalStateException("not a transactional producer");
        }
        kafka.roundTrip();
        if (kafka.timesOutBeforeLanding()) {
            throw new TimeoutException("model: initTransactions() of " + transactionalId + " timed out");
        }
        int e = kafka.initTransactions(transactionalId);
        if (kafka.timesOutAfterLanding()) { // the epoch moved at the broker, this client never heard of it
            throw new TimeoutException(
                    "model: initTransactions() of " + transactionalId + " timed out after it landed");
        }
        epoch = e;
    }

    @Override
    public void beginTransaction() {
        requireUsable();
        if (inTransaction) {
            throw new IllegalStateException("model: " + transactionalId + " has a transaction open already");
        }
        inTransaction = true;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<Object, Object> record) {
        return send(record, null);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<Object, Object> record, Callback callback) {
        requireOpen();
        if (transactionalId == null) { // a plain producer (the container's dead letters): lands at once
            kafka.roundTrip();
            TopicPartition tp = new TopicPartition(record.topic(), record.partition() == null ? 0 : record.partition());
            long offset = kafka.append(tp, record.key(), record.value());
            RecordMetadata md = new RecordMetadata(tp, offset, 0, 0, -1, -1);
            if (callback != null) {
                callback.onCompletion(md, null);
            }
            return CompletableFuture.completedFuture(md);
        }
        if (!inTransaction) {
            throw new IllegalStateException("model: send() of " + transactionalId + " outside a transaction");
        }
        TopicPartition tp = new TopicPartition(record.topic(), record.partition() == null ? 0 : record.partition());
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        KafkaModel.Txn txn = fenced ? null : kafka.transaction(transactionalId, epoch);
        if (txn == null) {
            fenced = true;
            fail(
                    f,
                    callback,
                    new ProducerFencedException(
                            "model: producer " + transactionalId + " epoch " + epoch + " is fenced"));
        } else if (kafka.rejectsSend()) {
            abortableError = true;
            fail(
                    f,
                    callback,
                    new RecordTooLargeException("model: the broker rejected an output of " + transactionalId));
        } else {
            KafkaModel.Entry e = kafka.appendTransactional(txn, tp, record.key(), record.value());
            RecordMetadata md = new RecordMetadata(tp, e.offset(), 0, e.timestamp(), -1, -1);
            f.complete(md);
            if (callback != null) {
                callback.onCompletion(md, null);
            }
        }
        return f;
    }

    private static void fail(CompletableFuture<RecordMetadata> f, Callback callback, RuntimeException e) {
        f.completeExceptionally(e);
        if (callback != null) {
            callback.onCompletion(null, e);
        }
    }

    @Override
    public void sendOffsetsToTransaction(
            Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
        requireUsable();
        requireInTransaction("sendOffsetsToTransaction");
        kafka.roundTrip();
        KafkaModel.Txn txn = kafka.transaction(transactionalId, epoch);
        if (txn == null) {
            fenced = true;
            throw new ProducerFencedException("model: producer " + transactionalId + " epoch " + epoch + " is fenced");
        }
        if (kafka.timesOutBeforeLanding()) {
            throw new TimeoutException("model: sendOffsetsToTransaction() of " + transactionalId + " timed out");
        }
        txn.offsets
                .computeIfAbsent(groupMetadata.groupId(), g -> new java.util.HashMap<>())
                .putAll(offsets);
        if (kafka.timesOutAfterLanding()) {
            throw new TimeoutException(
                    "model: sendOffsetsToTransaction() of " + transactionalId + " timed out after it landed");
        }
    }

    @Override
    public void commitTransaction() {
        requireOpen();
        if (fenced) {
            throw new ProducerFencedException("model: producer " + transactionalId + " is fenced");
        }
        requireInTransaction("commitTransaction");
        if (abortableError) {
            throw new KafkaException(
                    "model: cannot commit the transaction of " + transactionalId + ": a send failed; " + "abort it");
        }
        kafka.roundTrip();
        if (kafka.fenced(transactionalId, epoch)) {
            fenced = true;
            throw new ProducerFencedException("model: producer " + transactionalId + " epoch " + epoch + " is fenced");
        }
        if (kafka.timesOutBeforeLanding()) {
            commitMustRetry = true;
            throw new TimeoutException("model: commitTransaction() of " + transactionalId + " timed out");
        }
        kafka.commit(transactionalId, epoch);
        if (kafka.timesOutAfterLanding()) {
            commitMustRetry = true; // a retry finds it committed
            throw new TimeoutException(
                    "model: commitTransaction() of " + transactionalId + " timed out after it " + "landed");
        }
        commitMustRetry = false;
        inTransaction = false;
    }

    @Override
    public void abortTransaction() {
        requireOpen();
        if (fenced) {
            throw new ProducerFencedException("model: producer " + transactionalId + " is fenced");
        }
        if (commitMustRetry) {
            throw new KafkaException("model: cannot abort the transaction of " + transactionalId + ": the previous "
                    + "commitTransaction() timed out and must be retried");
        }
        requireInTransaction("abortTransaction");
        kafka.roundTrip();
        if (kafka.fenced(transactionalId, epoch)) {
            fenced = true;
            throw new ProducerFencedException("model: producer " + transactionalId + " epoch " + epoch + " is fenced");
        }
        kafka.abort(transactionalId, epoch);
        abortableError = false;
        inTransaction = false;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("model: producer " + transactionalId + " is closed");
        }
    }

    private void requireUsable() {
        requireOpen();
        if (fenced) {
            throw new ProducerFencedException("model: producer " + transactionalId + " is fenced");
        }
        if (epoch < 0) {
            throw new IllegalStateException("model: initTransactions() of " + transactionalId + " has not succeeded");
        }
        if (commitMustRetry) {
            throw new KafkaException("model: the previous commitTransaction() of " + transactionalId + " timed out and "
                    + "must be retried");
        }
    }

    private void requireInTransaction(String call) {
        if (!inTransaction) {
            throw new IllegalStateException("model: " + call + "() of " + transactionalId + " with no transaction");
        }
    }

    @Override
    public void flush() {}

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return List.of();
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return Map.of();
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {}

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {}

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        throw new UnsupportedOperationException("model");
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public void close(Duration timeout) {
        closed = true;
    }
}
