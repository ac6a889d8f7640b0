package io.groupkeeper.benchmarks.parallel;

import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelConsumerOptions.CommitMode;
import io.confluent.parallelconsumer.ParallelConsumerOptions.ProcessingOrder;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One parallel-consumer 0.5.3.3 instance in a JVM of its own ({@link RemoteInstance} starts it with kafka-clients
 * 3.9.1 first on the class path: 0.5.3.3 fails on kafka-clients 4.4). Settings: what its README documents as fastest —
 * {@code maxConcurrency} = the workers, commit mode {@code PERIODIC_CONSUMER_ASYNCHRONOUS} ("faster, as it doesn't
 * block the control loop"; its default), its other options at their defaults. The handler waits {@code handlerMs}.
 * Writes {@code #S partition offset key} to stdout when a record enters the handler and {@code #E ...} when it leaves
 * it; closes (without draining first, as a rebalance would not drain either) when stdin says {@code close} or ends.
 *
 * <pre>PcChild bootstrap topic group PARTITION|KEY|UNORDERED workers handlerMs</pre>
 */
public final class PcChild {

    private PcChild() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        ProcessingOrder order = ProcessingOrder.valueOf(args[3]);
        int workers = Integer.parseInt(args[4]);
        long handlerMs = Long.parseLong(args[5]);
        PrintStream events = new PrintStream(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false,
                StandardCharsets.UTF_8);
        Setup setup = new Setup(bootstrap, null, topic, 0, workers, handlerMs, null, null);
        KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(setup.consumerProps(group), new StringDeserializer(), new StringDeserializer());
        ParallelStreamProcessor<String, String> pc =
                ParallelStreamProcessor.createEosStreamProcessor(ParallelConsumerOptions.<String, String>builder()
                        .consumer(consumer)
                        .ordering(order)
                        .maxConcurrency(workers)
                        .commitMode(CommitMode.PERIODIC_CONSUMER_ASYNCHRONOUS)
                        .build());
        pc.subscribe(List.of(topic));
        pc.poll(ctx -> {
            ConsumerRecord<String, String> r = ctx.getSingleConsumerRecord();
            events.println("#S " + r.partition() + " " + r.offset() + " " + r.key());
            try {
                Thread.sleep(handlerMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                events.println("#X " + r.partition() + " " + r.offset() + " " + r.key());
                throw new IllegalStateException("interrupted", e);
            }
            events.println("#E " + r.partition() + " " + r.offset() + " " + r.key());
        });
        Thread flusher = new Thread(
                () -> {
                    while (true) {
                        events.flush();
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "events-flusher");
        flusher.setDaemon(true);
        flusher.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        do {
            line = in.readLine();
        } while (line != null && !line.equals("close"));
        pc.closeDontDrainFirst(Duration.ofSeconds(30));
        events.flush();
        System.exit(0);
    }
}
