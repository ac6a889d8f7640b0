package io.groupkeeper.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code groupkeeper.*}: the ZooKeeper connection and the listener defaults. Kafka's own settings (bootstrap servers,
 * security, deserializers, producer settings for dead letters) come from Spring Boot's {@code spring.kafka.*}.
 */
@ConfigurationProperties(prefix = "groupkeeper")
public class GroupKeeperProperties {

    private final ZooKeeper zookeeper = new ZooKeeper();
    private final Listener listener = new Listener();
    /** Per listener (by id) overrides of {@code groupkeeper.listener.*}. */
    private final Map<String, Listener> listeners = new LinkedHashMap<>();

    /**
     * Names of beans and {@code spring.kafka.*} properties that configure only this application's own
     * {@code @KafkaListener} containers (or its {@code KafkaTemplate}), which {@code @GroupKeeperListener} methods do
     * not apply: listed here they no longer fail the start (each is logged once at INFO instead).
     */
    private List<String> springKafkaOnly = new ArrayList<>();

    public List<String> getSpringKafkaOnly() {
        return springKafkaOnly;
    }

    public void setSpringKafkaOnly(List<String> springKafkaOnly) {
        this.springKafkaOnly = springKafkaOnly;
    }

    public ZooKeeper getZookeeper() {
        return zookeeper;
    }

    public Listener getListener() {
        return listener;
    }

    public Map<String, Listener> getListeners() {
        return listeners;
    }

    public static class ZooKeeper {
        /** ZooKeeper servers, e.g. {@code zk1:2181,zk2:2181}. Required. */
        private String connect;
        /** Root path of all of groupkeeper's nodes (tenants sharing one ensemble use different ones). */
        private String namespace = "groupkeeper";
        /** ZooKeeper session timeout. */
        private Duration sessionTimeout = Duration.ofSeconds(15);
        /** How long the start waits for the first connection. */
        private Duration connectionTimeout = Duration.ofSeconds(10);

        private final Digest digest = new Digest();

        public String getConnect() {
            return connect;
        }

        public void setConnect(String connect) {
            this.connect = connect;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectionTimeout() {
            return connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }

        public Digest getDigest() {
            return digest;
        }
    }

    /** ZooKeeper digest ACL credentials: nodes groupkeeper creates can then be changed only with them. */
    public static class Digest {
        private String username;
        private String password;
        /** Whether clients without the credentials may read the nodes. */
        private boolean worldReadable = true;

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public boolean isWorldReadable() {
            return worldReadable;
        }

        public void setWorldReadable(boolean worldReadable) {
            this.worldReadable = worldReadable;
        }
    }

    /** Listener defaults ({@code groupkeeper.listener.*}) or one listener's overrides; unset (null) inherits. */
    public static class Listener {
        /** Consumers per listener in this process. Default 1. */
        private Integer concurrency;
        /** Whether listener containers start with the context. Default true. */
        private Boolean autoStartup;
        /** Where partitions without a committed offset start: latest, earliest or an ISO-8601 instant. Default latest. */
        private String startPosition;
        /** How often positions are committed to ZooKeeper. Default 1s. */
        private Duration commitInterval;
        /** A handler call running longer than this is reported (WARN with its stack, a meter). Default 30s. */
        private Duration watchdog;
        /** How long a graceful stop waits for records in flight. Default 20s (below Boot's 30s shutdown phase). */
        private Duration stopDeadline;
        /**
         * Copy committed offsets into Kafka's group offsets too, so Kafka's tools see the group. Default false. The Kafka
         * group id must be the mirror's alone (see docs/kafka-adapter.md).
         */
        private Boolean mirrorOffsets;
        /** The Kafka group id the mirror writes under. Default: the listener's group. */
        private String mirrorGroup;
        /**
         * At start, copy what the listener's group committed in Kafka (its Kafka consumer-group offsets, e.g. from the
         * Spring Kafka service it replaces) into ZooKeeper for the partitions that have no offset there, so the switch
         * neither repeats nor skips records. Default true.
         */
        private Boolean takeOverKafkaOffsets;

        public Boolean getTakeOverKafkaOffsets() {
            return takeOverKafkaOffsets;
        }

        public void setTakeOverKafkaOffsets(Boolean takeOverKafkaOffsets) {
            this.takeOverKafkaOffsets = takeOverKafkaOffsets;
        }
        /**
         * Makes the listener's consumers static members: consumer n (from 0) has the instance id
         * {@code <instance-id>-<n>}. Set it per listener ({@code groupkeeper.listeners.<id>.instance-id}) and per
         * process (e.g. from the host name). Default: none (dynamic members).
         */
        private String instanceId;
        /**
         * Exactly once into Kafka: what the listener sends with its {@code TransactionalSender} parameter commits in
         * one Kafka transaction with the input position (a fenced transactional producer per owned input partition;
         * docs/exactly-once.md); so does a transactional KafkaTemplate used in the method. Serializers from
         * spring.kafka.producer.key-serializer / value-serializer. Default false, true when
         * spring.kafka.producer.transaction-id-prefix is set.
         */
        private Boolean transactional;
        /** The prefix of the transactional producers' transactional.id (then group/topic/partition). Default groupkeeper/. */
        private String transactionalIdPrefix;
        /**
         * Publish a ListenerIdleEvent when a consumer of the listener has fetched nothing for this long, and again
         * every such interval while it stays quiet. Default: none.
         */
        private Duration idleEventInterval;
        /** In what order records are processed: partition, key or unordered (docs/parallel.md). Default partition. */
        private String ordering;
        /** Workers per consumer, shared by its partitions (key and unordered orderings). Default 1. */
        private Integer parallelism;
        /**
         * Records above a partition's low-water mark that may be dispatched (docs/parallel.md, the span): 1 to 262144.
         * Default 10000.
         */
        private Integer maxSpan;
        /** Records held per partition (fetched, not done) before its fetching pauses. Default 10000. */
        private Integer maxBufferedRecords;
        /** Bytes held per partition before its fetching pauses. Default 64MB. */
        private DataSize maxBufferedBytes;

        private final Error error = new Error();

        public Integer getMaxSpan() {
            return maxSpan;
        }

        public void setMaxSpan(Integer maxSpan) {
            this.maxSpan = maxSpan;
        }

        public Integer getMaxBufferedRecords() {
            return maxBufferedRecords;
        }

        public void setMaxBufferedRecords(Integer maxBufferedRecords) {
            this.maxBufferedRecords = maxBufferedRecords;
        }

        public DataSize getMaxBufferedBytes() {
            return maxBufferedBytes;
        }

        public void setMaxBufferedBytes(DataSize maxBufferedBytes) {
            this.maxBufferedBytes = maxBufferedBytes;
        }

        public String getOrdering() {
            return ordering;
        }

        public void setOrdering(String ordering) {
            this.ordering = ordering;
        }

        public Integer getParallelism() {
            return parallelism;
        }

        public void setParallelism(Integer parallelism) {
            this.parallelism = parallelism;
        }

        private final DeadLetter deadLetter = new DeadLetter();

        public Integer getConcurrency() {
            return concurrency;
        }

        public Boolean getTransactional() {
            return transactional;
        }

        public void setTransactional(Boolean transactional) {
            this.transactional = transactional;
        }

        public String getTransactionalIdPrefix() {
            return transactionalIdPrefix;
        }

        public void setTransactionalIdPrefix(String transactionalIdPrefix) {
            this.transactionalIdPrefix = transactionalIdPrefix;
        }

        public Duration getIdleEventInterval() {
            return idleEventInterval;
        }

        public void setIdleEventInterval(Duration idleEventInterval) {
            this.idleEventInterval = idleEventInterval;
        }

        public void setConcurrency(Integer concurrency) {
            this.concurrency = concurrency;
        }

        public Boolean getAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(Boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public String getStartPosition() {
            return startPosition;
        }

        public void setStartPosition(String startPosition) {
            this.startPosition = startPosition;
        }

        public Duration getCommitInterval() {
            return commitInterval;
        }

        public void setCommitInterval(Duration commitInterval) {
            this.commitInterval = commitInterval;
        }

        public Duration getWatchdog() {
            return watchdog;
        }

        public void setWatchdog(Duration watchdog) {
            this.watchdog = watchdog;
        }

        public Duration getStopDeadline() {
            return stopDeadline;
        }

        public void setStopDeadline(Duration stopDeadline) {
            this.stopDeadline = stopDeadline;
        }

        public Boolean getMirrorOffsets() {
            return mirrorOffsets;
        }

        public void setMirrorOffsets(Boolean mirrorOffsets) {
            this.mirrorOffsets = mirrorOffsets;
        }

        public String getMirrorGroup() {
            return mirrorGroup;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        public void setMirrorGroup(String mirrorGroup) {
            this.mirrorGroup = mirrorGroup;
        }

        public Error getError() {
            return error;
        }

        public DeadLetter getDeadLetter() {
            return deadLetter;
        }
    }

    /** The error policy: attempts and backoff, then a recovery; rules per exception class. */
    public static class Error {
        /** Attempts in all (1 = no retry). Default 3. */
        private Integer attempts;
        /** Wait after the first failed attempt. Default 1s. */
        private Duration backoff;
        /** Factor by which the wait grows after each further failure. Default 1 (fixed). */
        private Double backoffMultiplier;
        /** Longest wait. Default: the backoff times multiplier^(attempts-2). */
        private Duration maxBackoff;
        /** After the last attempt: dead-letter, skip or stop-partition. Default dead-letter. */
        private String recovery;
        /** For a record that does not deserialize (never retried): dead-letter, skip or stop-partition. Default dead-letter. */
        private String deserializationFailure;
        /** Rules per exception class; the most specific matching class wins. Replace the inherited list as a whole. */
        private List<Rule> rules;

        public Integer getAttempts() {
            return attempts;
        }

        public void setAttempts(Integer attempts) {
            this.attempts = attempts;
        }

        public Duration getBackoff() {
            return backoff;
        }

        public void setBackoff(Duration backoff) {
            this.backoff = backoff;
        }

        public Double getBackoffMultiplier() {
            return backoffMultiplier;
        }

        public void setBackoffMultiplier(Double backoffMultiplier) {
            this.backoffMultiplier = backoffMultiplier;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        public String getRecovery() {
            return recovery;
        }

        public void setRecovery(String recovery) {
            this.recovery = recovery;
        }

        public String getDeserializationFailure() {
            return deserializationFailure;
        }

        public void setDeserializationFailure(String deserializationFailure) {
            this.deserializationFailure = deserializationFailure;
        }

        public List<Rule> getRules() {
            return rules;
        }

        public void setRules(List<Rule> rules) {
            this.rules = rules == null ? null : new ArrayList<>(rules);
        }
    }

    /** One exception rule: the class (and its subclasses), its attempts and backoff, and its recovery. */
    public static class Rule {
        /** Fully qualified exception class name. */
        private String exception;
        /** Attempts in all. Default 1 (no retry). */
        private int attempts = 1;
        /** Wait between attempts. Default 0. */
        private Duration backoff = Duration.ZERO;
        /** dead-letter, skip or stop-partition. */
        private String recovery = "dead-letter";

        public String getException() {
            return exception;
        }

        public void setException(String exception) {
            this.exception = exception;
        }

        public int getAttempts() {
            return attempts;
        }

        public void setAttempts(int attempts) {
            this.attempts = attempts;
        }

        public Duration getBackoff() {
            return backoff;
        }

        public void setBackoff(Duration backoff) {
            this.backoff = backoff;
        }

        public String getRecovery() {
            return recovery;
        }

        public void setRecovery(String recovery) {
            this.recovery = recovery;
        }
    }

    /** Where dead letters go. */
    public static class DeadLetter {
        /** One dead-letter topic for every source topic. Default: {@code <topic><suffix>}. */
        private String topic;
        /**
         * Suffix of the per-topic dead-letter topics. Default {@code -dlt} (Spring Kafka 3.3+'s); {@code .DLT} keeps
         * Spring Kafka 2.x's.
         */
        private String suffix;
        /**
         * Create missing dead-letter topics at start (true), or fail the start naming them (false). Default: the
         * default ones ({@code <topic>-dlt}) are created, a topic or suffix set here must exist.
         */
        private Boolean createTopics;

        public String getTopic() {
            return topic;
        }

        public void setTopic(String topic) {
            this.topic = topic;
        }

        public String getSuffix() {
            return suffix;
        }

        public void setSuffix(String suffix) {
            this.suffix = suffix;
        }

        public Boolean getCreateTopics() {
            return createTopics;
        }

        public void setCreateTopics(Boolean createTopics) {
            this.createTopics = createTopics;
        }
    }
}
