package io.groupkeeper.benchmarks.rebalance;

import io.groupkeeper.embedded.EmbeddedKafka;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * groupkeeper over Kafka: {@code io.groupkeeper.kafka.CoordinatedConsumer} (KafkaConsumers with {@code assign()} +
 * {@code seek()} under groupkeeper coordination) on the same broker and ZooKeeper as the other subjects, default
 * settings. <b>Pending the kafka-adapter module</b>: every method that needs it throws
 * {@code UnsupportedOperationException("needs kafka-adapter")}, and the harness reports the subject as pending.
 *
 * <p>To fill in (the whole remaining work of the groupkeeper side of issue 7 item 2):
 * <ol>
 *   <li>benchmarks/pom.xml: depend on {@code groupkeeper-kafka-adapter}.</li>
 *   <li>{@link #start}: build a CoordinatedConsumer for {@code groupId} on {@link #topic} with a
 *   {@code ZooKeeperStore} of its own (one session per member, connected through a {@link BlackholeProxy} as in
 *   {@link GroupKeeperZkSubject}, so {@link SubjectMember#crash()} can silence it), Kafka properties from
 *   {@code KafkaPollingMember.baseProperties} (no group.protocol: the adapter does not use Kafka's groups), and run it
 *   with {@link KafkaPollingMember} if CoordinatedConsumer is a {@code Consumer<byte[], byte[]>}, otherwise with an
 *   equivalent loop: report {@code onPartitionsAssigned} after the adapter's {@code assign()+seek()},
 *   {@code onPartitionsRevoked}/{@code Lost}, and one {@link Probe#delivered} per partition per poll.</li>
 *   <li>{@link #beforeEvent}: the same marks as {@link GroupKeeperZkSubject#beforeEvent} (publish via
 *   {@code GenerationWatch}, expiry via the member node's deletion); crash = blackhole the proxy and stop polling
 *   without commit or close.</li>
 *   <li>{@link #consumesRecords()} stays true: "done" is owned and fetched, like Kafka's side.</li>
 * </ol>
 */
public final class GroupKeeperKafkaSubject implements RebalanceSubject {

    static final String PENDING = "needs kafka-adapter";

    private final String zkConnect;
    private final EmbeddedKafka kafka;
    final String topic;

    public GroupKeeperKafkaSubject(String zkConnect, EmbeddedKafka kafka, String topic) {
        this.zkConnect = zkConnect;
        this.kafka = kafka;
        this.topic = topic;
    }

    /** False until the adapter is wired in; the harness then skips this subject and says why. */
    public static boolean available() {
        return false;
    }

    @Override
    public String key() {
        return "groupkeeper-kafka";
    }

    @Override
    public String label() {
        return "groupkeeper over Kafka (CoordinatedConsumer), defaults";
    }

    @Override
    public String system() {
        return "groupkeeper";
    }

    @Override
    public boolean consumesRecords() {
        return true;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("status", "pending: " + PENDING);
        s.put("zookeeper", zkConnect);
        s.put("bootstrap", kafka.bootstrapServers());
        return s;
    }

    @Override
    public SubjectMember start(String groupId, String memberName, boolean crashScenario, Probe probe) {
        throw new UnsupportedOperationException(PENDING);
    }

    @Override
    public EventMarks beforeEvent(String groupId, SubjectMember crashTarget) {
        throw new UnsupportedOperationException(PENDING);
    }

    @Override
    public void close() {
    }
}
