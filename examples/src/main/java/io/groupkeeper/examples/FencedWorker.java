package io.groupkeeper.examples;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.CoordinatedConsumer;
import io.groupkeeper.kafka.StartPosition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of the zombie example: a {@link CoordinatedConsumer} on its own polling thread whose user code writes
 * every record to a {@link FencedSink} ({@link FencedSinkLoop}), storing the worker's name under the record's key —
 * who wrote what. Its user code can be held on a record ({@link #pauseOnNextRecord}), to play a process that freezes
 * with a batch in hand.
 */
public final class FencedWorker implements AutoCloseable {

    private final String name;
    private final GroupKeeper keeper;
    private final CoordinatedConsumer<String, String> consumer;
    private final FencingTokens tokens;
    private final FencedSinkLoop loop;
    private final Thread thread;
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Long> processed = new CopyOnWriteArrayList<>();
    private volatile LongPredicate pauseWhen;
    private volatile long pausedAt = -1;

    private FencedWorker(
            String name,
            GroupKeeper keeper,
            String group,
            String topic,
            String bootstrap,
            FencedSink<TopicPartition> sink) {
        this.name = name;
        this.keeper = keeper;
        this.tokens = new FencingTokens(sink);
        this.consumer = CoordinatedConsumer.<String, String>builder(keeper)
                .group(group)
                .topics(topic)
                .kafkaProperty("bootstrap.servers", bootstrap)
                .kafkaProperty("max.poll.records", 20)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .startPosition(StartPosition.earliest())
                .commitInterval(Duration.ofMillis(200))
                .listener(tokens)
                .build();
        tokens.bind(consumer);
        this.loop = new FencedSinkLoop(consumer, tokens, sink, this::process);
        this.thread = new Thread(loop, "fenced-" + name);
        this.thread.setDaemon(true);
    }

    /** Joins {@code group} through {@code keeper} (started) and starts polling. */
    public static FencedWorker start(
            String name,
            GroupKeeper keeper,
            String group,
            String topic,
            String bootstrap,
            FencedSink<TopicPartition> sink) {
        FencedWorker w = new FencedWorker(name, keeper, group, topic, bootstrap, sink);
        w.consumer.start();
        w.thread.start();
        return w;
    }

    private String process(ConsumerRecord<String, String> r) throws InterruptedException {
        LongPredicate pause = pauseWhen;
        if (pause != null && pause.test(r.offset())) {
            pauseWhen = null;
            pausedAt = r.offset();
            release.await(60, TimeUnit.SECONDS); // the frozen process (bounded): it holds its batch meanwhile
        }
        processed.add(r.offset());
        return name;
    }

    /** Its user code will freeze on the next record it processes, until {@link #resume()}. */
    public void pauseOnNextRecord() {
        pauseWhen = offset -> true;
    }

    /** Its user code will freeze on the record at {@code offset}, until {@link #resume()}. */
    public void pauseAt(long offset) {
        pauseWhen = o -> o == offset;
    }

    public void resume() {
        release.countDown();
    }

    /** The offset its user code is (or was) frozen on; -1 before. */
    public long pausedAt() {
        return pausedAt;
    }

    /** Offsets its user code processed (finished), in order. */
    public List<Long> processed() {
        return List.copyOf(processed);
    }

    public String name() {
        return name;
    }

    public FencedSinkLoop loop() {
        return loop;
    }

    public FencingTokens tokens() {
        return tokens;
    }

    public GroupKeeper keeper() {
        return keeper;
    }

    /** Ends its polling thread (a frozen record is let go first), waiting up to 30 s. */
    public void stop() throws InterruptedException {
        release.countDown();
        loop.stop();
        thread.join(30_000);
    }

    /** Stops, then leaves the group and closes its keeper. */
    @Override
    public void close() throws InterruptedException {
        stop();
        consumer.close();
        keeper.close();
    }
}
