package io.groupkeeper.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Produces numbered records to a topic (creating it if missing), to feed consumers started by hand. */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        description = "Produces COUNT records (key key-N, value PREFIX-<time>-N) to a topic, creating the topic if it"
                + " is missing.")
final class ProduceCommand implements Callable<Integer> {

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "topic to produce to")
    String topic;

    @Option(names = "--count", defaultValue = "10", description = "records to produce (default: ${DEFAULT-VALUE})")
    int count;

    @Option(
            names = "--partitions",
            defaultValue = "3",
            description = "partitions when the topic is created here (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(
            names = "--interval-ms",
            defaultValue = "0",
            description = "pause between records (default: ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--prefix", defaultValue = "record", description = "value prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(
            names = {"-X", "--kafka-property"},
            paramLabel = "KEY=VALUE",
            description = "any producer/admin property (security, SASL/SSL ...); repeatable")
    Map<String, String> kafkaProperties = new HashMap<>();

    @Override
    public Integer call() throws Exception {
        Map<String, Object> props = new HashMap<>(kafkaProperties);
        props.put("bootstrap.servers", bootstrap);
        boolean singleBroker;
        try (Admin admin = Admin.create(adminProps(props))) {
            singleBroker =
                    admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() == 1;
            try {
                admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                        .all()
                        .get();
                System.err.println("created topic " + topic + " with " + partitions + " partitions");
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    System.err.println("error: cannot create topic " + topic + ": "
                            + e.getCause().getMessage());
                    return 1;
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("error: cannot reach Kafka at " + bootstrap + ": " + e);
            return 1;
        }
        if (singleBroker && !props.containsKey("acks")) {
            // One broker: acks=1 is as durable as acks=all, and avoids a broker quirk right after topic creation
            // (an appended write answered NOT_LEADER_OR_FOLLOWER wedges an idempotent producer).
            props.put("acks", "1");
            props.putIfAbsent("enable.idempotence", "false");
            props.putIfAbsent("max.in.flight.requests.per.connection", "1");
        }
        props.putIfAbsent("acks", "all");
        long stamp = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, "key-" + i, prefix + "-" + stamp + "-" + i)));
                if (intervalMs > 0) {
                    producer.flush();
                    Thread.sleep(intervalMs);
                }
            }
            for (Future<?> f : sent) {
                f.get();
            }
            producer.close(Duration.ofSeconds(10));
        }
        System.err.println("produced " + count + " records to " + topic);
        return 0;
    }

    private static Map<String, Object> adminProps(Map<String, Object> props) {
        Map<String, Object> admin = new HashMap<>();
        props.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                admin.put(k, v);
            }
        });
        return admin;
    }
}
