package io.groupkeeper.benchmarks.rebalance;

import java.util.Map;

/**
 * One system under one setting whose rebalances the side-by-side harness measures: Kafka's own group protocol
 * ({@link KafkaNativeSubject}), groupkeeper over Kafka ({@link GroupKeeperKafkaSubject}) or
 * groupkeeper's coordination alone ({@link GroupKeeperZkSubject}).
 *
 * <p>A subject starts members of a group on the harness's topic and reports what they do to a {@link Probe}:
 * ownership changes as the member's own rebalance callbacks see them ({@link Probe#assigned}, {@link Probe#revoked}),
 * and, for subjects that consume records, every poll that delivered records of a partition ({@link Probe#delivered}).
 * The harness does everything else: the events, the timing, the checks. Implementations are used from one harness
 * thread; members run on their own threads.
 */
public interface RebalanceSubject extends AutoCloseable {

    /** Stable key for files and charts, e.g. {@code kafka-classic-hb500}. */
    String key();

    /** Human label for tables, e.g. {@code Kafka classic, heartbeat.interval.ms=500}. */
    String label();

    /** Which family: {@code kafka}, {@code groupkeeper} (over Kafka) or {@code groupkeeper-zk} (coordination only). */
    String system();

    /** True if members consume records, so "done" includes the first record delivered after the event. */
    boolean consumesRecords();

    /** The settings in effect, recorded with the results. */
    Map<String, Object> settings();

    /**
     * Called once for each new group before its first member starts. {@code crashScenario}: the group is used for
     * scenario (c), where the harness may shorten session timeouts (the measure starts at expiry detection).
     */
    default void prepareGroup(String groupId, boolean crashScenario) {}

    /**
     * Starts a member of {@code groupId} named {@code memberName} consuming the harness topic. Returns at once: the
     * member's construction, connection and join all happen on its own thread, after the event instant.
     */
    SubjectMember start(String groupId, String memberName, boolean crashScenario, Probe probe);

    /** Arms whatever the subject can observe of the next event (publish instant, expiry detection). */
    default EventMarks beforeEvent(String groupId, SubjectMember crashTarget) {
        return EventMarks.NONE;
    }

    /**
     * Cumulative counts of the coordination requests this subject's members send, by kind, with the total under
     * {@link IdleTraffic#REQUESTS}; the harness divides the difference over an idle window by members and seconds
     * ({@link IdleTraffic}). Empty if the subject cannot count them.
     */
    default Map<String, Long> coordinationCounts() {
        return Map.of();
    }

    @Override
    void close();

    /** A member under the harness's control. */
    interface SubjectMember {

        String name();

        /** Graceful leave (commit, leave the group, close). Returns at once; the member's thread does the work. */
        void leave();

        /**
         * Crash: stop at once without leaving the group and without committing, as a killed process would, so the
         * group learns of it only by session expiry. Returns at once.
         */
        void crash();

        /** Waits (bounded) until the member's thread has ended; for clean shutdown between scenarios. */
        void awaitStopped(long timeoutMs);
    }

    /** What a subject observed around one event; instants are {@link System#nanoTime()}, 0 when unknown. */
    interface EventMarks {

        EventMarks NONE = new EventMarks() {};

        /** When the new target assignment was published (groupkeeper: the leader's write of the assignment node). */
        default long publishedAt() {
            return 0;
        }

        /** When the system detected the crashed member's session expiry; 0 if it could not be observed. */
        default long expiryDetectedAt() {
            return 0;
        }

        /** How {@link #expiryDetectedAt()} was observed, for the record. */
        default String expirySource() {
            return "none";
        }

        /**
         * Instants of further steps the subject saw, by name in order (e.g. groupkeeper's joiner: {@code connected},
         * {@code started}); reported in ms from the event to profile where the time goes.
         */
        default Map<String, Long> phases() {
            return Map.of();
        }
    }
}
