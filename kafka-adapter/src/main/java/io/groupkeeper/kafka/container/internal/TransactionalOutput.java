package io.groupkeeper.kafka.container.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.container.TransactionalSender;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
    /** The thread that runs the worker's loop ({@link #ownedBy}), where handler calls run; null before it starts. */
    private volatile Thread owner;

    private final List<Pending> pending = new ArrayList<>();
    /** Per input partition: the outputs flushed into its transaction and not known to be written yet. */
    private final Map<TopicPartition, ArrayDeque<Sent>> sent = new HashMap<>();

    private CoordinatedConsumer<?, ?> consumer;
    private boolean inCall;
    /** See {@link #takeEarlierFailure}. */
    private OutputFailure earlier;

    @SuppressWarnings("unchecked")
    TransactionalOutput(Serializer<?> keySerializer, Serializer<?> valueSerializer) {
        this.keySerializer = (Serializer<Object>) keySerializer;
        this.valueSerializer = (Serializer<Object>) valueSerializer;
    }

    /** The worker's loop runs on {@code thread} (the worker's own, or whatever carries its task): it alone sends. */
    void ownedBy(Thread thread) {
        this.owner = thread;
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
        Pending p = new Pending(new ProducerRecord<>(
                record.topic(), record.partition(), record.timestamp(), key, value, record.headers()));
        pending.add(p);
        return p;
    }

    /**
     * The call of the record (or batch) {@code first}..{@code last} succeeded: its records go into the transaction of
     * {@code input}. Returns null, or the failure of a send (the producer rejected a record at once: too large, not
     * authorised, a partitioner that threw; or the transaction is in an error state after an earlier record's send
     * failed). Then the partition's transaction has been aborted and the partition moved back to where it began
     * ({@link CoordinatedConsumer#abort}); the failure names the record whose output failed.
     */
    OutputFailure flush(TopicPartition input, long first, long last) {
        inCall = false;
        OutputFailure failure = null;
        int sent = 0;
        try {
            prune(input);
            for (Pending p : pending) {
                Future<RecordMetadata> f;
                try {
                    f = consumer.send(input, p.record);
                } catch (RuntimeException e) {
                    OutputFailure earlier = firstFailure(input);
                    failure = earlier != null ? earlier : new OutputFailure(first, last, e);
                    break;
                }
                p.sent(f);
                sent++;
                tracked(input).add(new Sent(first, last, f));
                Throwable rejected = failureOf(f);
                if (rejected != null) {
                    failure = new OutputFailure(first, last, rejected);
                    break;
                }
            }
        } finally {
            if (failure != null) {
                Throwable cause = failure.cause;
                pending.subList(sent, pending.size()).forEach(p -> p.dropped(cause));
            }
            pending.clear();
        }
        if (failure != null) {
            failure.resumeAt = abort(input);
        } else {
            earlier = takeFailed(input);
        }
        return failure;
    }

    /**
     * After a {@link #flush} that returned null: the failure of an output flushed earlier that Kafka reported since
     * (the broker rejected it after the call returned), then forgotten; null if none. Its transaction cannot commit:
     * the commit in the consumer's poll fails, aborts it and rewinds the partition — or already did, when these sends
     * went in (a failure in the open transaction makes every later send fail at once). Either way it was one failed
     * attempt of the record (or batch) it names, which nothing else counts.
     */
    OutputFailure takeEarlierFailure() {
        OutputFailure f = earlier;
        earlier = null;
        return f;
    }

    /** The first tracked output of {@code input} that failed (null if none); forgets every failed one. */
    private OutputFailure takeFailed(TopicPartition input) {
        ArrayDeque<Sent> q = sent.get(input);
        if (q == null || q.isEmpty() || failureOf(q.peekFirst().future) == null) {
            return null; // (after a prune, a head that is not failed is pending: the usual case)
        }
        OutputFailure first = null;
        for (Iterator<Sent> it = q.iterator(); it.hasNext(); ) {
            Sent s = it.next();
            Throwable c = failureOf(s.future);
            if (c != null) {
                if (first == null) {
                    first = new OutputFailure(s.first, s.last, c);
                }
                it.remove(); // (kept, it would hold every later output of the partition here for good)
            }
        }
        return first;
    }

    /** How many outputs are tracked and failed, over all input partitions (tests: after the worker has exited). */
    int failedTracked() {
        int n = 0;
        for (ArrayDeque<Sent> q : sent.values()) {
            for (Sent s : q) {
                n += failureOf(s.future) == null ? 0 : 1;
            }
        }
        return n;
    }

    /** Aborts the transaction of {@code input} now; returns the offset the partition continues from (-1: not owned). */
    long abort(TopicPartition input) {
        sent.remove(input);
        return consumer.abort(input);
    }

    private ArrayDeque<Sent> tracked(TopicPartition input) {
        return sent.computeIfAbsent(input, k -> new ArrayDeque<>());
    }

    /** Drops the leading outputs acknowledged (written into the transaction). */
    private void prune(TopicPartition input) {
        ArrayDeque<Sent> q = sent.get(input);
        while (q != null && !q.isEmpty() && q.peekFirst().future.isDone() && failureOf(q.peekFirst().future) == null) {
            q.pollFirst();
        }
    }

    private OutputFailure firstFailure(TopicPartition input) {
        ArrayDeque<Sent> q = sent.get(input);
        if (q != null) {
            for (Sent s : q) {
                Throwable c = failureOf(s.future);
                if (c != null) {
                    return new OutputFailure(s.first, s.last, c);
                }
            }
        }
        return null;
    }

    /** The failure of a completed send; null while pending or when it succeeded. */
    private static Throwable failureOf(Future<RecordMetadata> f) {
        if (!f.isDone()) {
            return null;
        }
        try {
            f.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause() == null ? e : e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** Sends {@code record} into the transaction of {@code input} now (a dead letter). */
    Future<RecordMetadata> sendNow(TopicPartition input, ProducerRecord<byte[], byte[]> record) {
        return consumer.send(input, record);
    }

    /**
     * A send that failed: the record (or batch, {@code first}..{@code last}) whose call made it, and why; where the
     * partition continues after the abort.
     */
    static final class OutputFailure {
        final long first;
        final long last;
        final Throwable cause;
        long resumeAt = -1;

        OutputFailure(long first, long last, Throwable cause) {
            this.first = first;
            this.last = last;
            this.cause = cause;
        }
    }

    private record Sent(long first, long last, Future<RecordMetadata> future) {}

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
