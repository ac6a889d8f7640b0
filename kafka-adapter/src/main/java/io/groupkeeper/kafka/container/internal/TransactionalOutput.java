package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.TransactionalSender;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One worker's {@link TransactionalSender}: serializes at once and holds the records of the handler call in progress;
 * {@link #flush} sends them into the input partition's transaction ({@link CoordinatedConsumer#send}) when the call
 * succeeded, {@link #discard} drops them when it failed. Worker thread only (the futures: any thread).
 */
final class TransactionalOutput implements TransactionalSender<Object, Object> {

    private final Serializer<Object> keySerializer;
    private final Serializer<Object> valueSerializer;
    private final Thread owner;
    private final List<Pending> pending = new ArrayList<>();
    private CoordinatedConsumer<?, ?> consumer;
    private boolean inCall;

    @SuppressWarnings("unchecked")
    TransactionalOutput(Serializer<?> keySerializer, Serializer<?> valueSerializer, Thread owner) {
        this.keySerializer = (Serializer<Object>) keySerializer;
        this.valueSerializer = (Serializer<Object>) valueSerializer;
        this.owner = owner;
    }

    void bind(CoordinatedConsumer<?, ?> consumer) {
        this.consumer = consumer;
    }

    /** A handler call begins. */
    void begin() {
        pending.clear();
        inCall = true;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<Object, Object> record) {
        if (Thread.currentThread() != owner || !inCall) {
            throw new IllegalStateException("the transactional sender works only on the handler's thread, during the "
                    + "handler call (its records commit with the input record's position)");
        }
        byte[] key = keySerializer.serialize(record.topic(), record.headers(), record.key());
        byte[] value = valueSerializer.serialize(record.topic(), record.headers(), record.value());
        Pending p = new Pending(new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), key, value,
                record.headers()));
        pending.add(p);
        return p;
    }

    /** The call succeeded: its records go into the transaction of {@code input}. */
    void flush(TopicPartition input) {
        inCall = false;
        int sent = 0;
        try {
            for (Pending p : pending) {
                p.sent(consumer.send(input, p.record));
                sent++;
            }
        } catch (RuntimeException e) { // (the transaction cannot commit now: it is aborted, the records come again)
            pending.subList(sent, pending.size()).forEach(p -> p.dropped(e));
            throw e;
        } finally {
            pending.clear();
        }
    }

    /** Sends {@code record} into the transaction of {@code input} now (a dead letter). */
    Future<RecordMetadata> sendNow(TopicPartition input, ProducerRecord<byte[], byte[]> record) {
        return consumer.send(input, record);
    }

    /** The call failed: its records are dropped (nothing, once flushed). */
    void discard() {
        if (!inCall && pending.isEmpty()) {
            return; // (every successful call: no exception made on this path)
        }
        inCall = false;
        IllegalStateException cause = new IllegalStateException("not sent: the handler call failed");
        pending.forEach(p -> p.dropped(cause));
        pending.clear();
    }

    /** A record waiting for its handler call to end. */
    private final class Pending implements Future<RecordMetadata> {
        final ProducerRecord<byte[], byte[]> record;
        private final CountDownLatch settled = new CountDownLatch(1);
        private volatile Future<RecordMetadata> sent;
        private volatile Throwable dropped;

        Pending(ProducerRecord<byte[], byte[]> record) {
            this.record = record;
        }

        void sent(Future<RecordMetadata> f) {
            sent = f;
            settled.countDown();
        }

        void dropped(Throwable cause) {
            dropped = cause;
            settled.countDown();
        }

        private void mustNotWaitInCall() {
            if (settled.getCount() > 0 && Thread.currentThread() == owner) {
                throw new IllegalStateException("this record is sent into the transaction when the handler call "
                        + "returns; waiting for it inside the call would never end");
            }
        }

        @Override
        public RecordMetadata get() throws InterruptedException, ExecutionException {
            mustNotWaitInCall();
            settled.await();
            if (dropped != null) {
                throw new ExecutionException("not sent: the handler call failed", dropped);
            }
            return sent.get();
        }

        @Override
        public RecordMetadata get(long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            mustNotWaitInCall();
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            if (!settled.await(timeout, unit)) {
                throw new TimeoutException("the handler call has not returned yet");
            }
            if (dropped != null) {
                throw new ExecutionException("not sent: the handler call failed", dropped);
            }
            return sent.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            Future<RecordMetadata> f = sent;
            return dropped != null || (f != null && f.isDone());
        }
    }
}
