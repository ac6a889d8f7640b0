package io.groupkeeper.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.kafka.container.Backoff;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.status.LagStatus;
import io.groupkeeper.zkprotocol.admin.GroupAdmin;
import io.groupkeeper.zkprotocol.admin.GroupStatus;
import io.groupkeeper.zkprotocol.admin.PartitionSelection;
import io.groupkeeper.zkprotocol.admin.ResetSpec;
import io.groupkeeper.zkprotocol.internal.ZkPaths;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import io.groupkeeper.zookeeper.admin.ZooKeeperAdmin;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * The listener container under an operator's and a session's hand (issue 48): the fencing token a handler call sees
 * is the one of the claim its records were fetched under, even after the partition changed hands during the call; an
 * operator's offset reset frees a partition the error policy stopped; failed handler calls show in a rate-limited WARN.
 */
class ContainerOperatorIT extends ContainerTestSupport {

    private static final String DISPATCHER = "io.groupkeeper.kafka.container.internal.Dispatcher";
    private static final String WORKER = "io.groupkeeper.kafka.container.internal.Worker";

    /**
     * A handler holds the first record while the member's session expires and the member claims the partition again
     * (a new claim, a new token). The held call still sees the token of the claim its record was fetched under — the
     * one the assignment hook was given — never the new claim's (the live token, which a sink would accept: a record of
     * an earlier ownership carrying a later owner's token). The records fetched under the new claim carry its token,
     * which the hook is given again at the new assignment.
     */
    @Test
    void aHandlerCallKeepsTheTokenOfTheClaimItsRecordsWereFetchedUnder() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        GroupKeeper keeper = newKeeper();
        send(topic, 0, "held", "next");
        List<OptionalLong> hookTokens = new CopyOnWriteArrayList<>();
        List<String> handled = new CopyOnWriteArrayList<>();
        List<OptionalLong> handlerTokens = new CopyOnWriteArrayList<>();
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TopicPartition tp = new TopicPartition(topic, 0);
        started(container(keeper, group, topic)
                .onPartitionsAssigned((partitions, seeker) -> hookTokens.add(seeker.fencingToken(tp)))
                .recordHandler(r -> {
                    if (r.value().equals("held") && handled.isEmpty()) {
                        handled.add("held-started");
                        inHandler.countDown();
                        assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                    }
                    handlerTokens.add(HandlerContext.fencingToken());
                    handled.add(r.value());
                })
                .build());
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(hookTokens).hasSize(1);
        long first = hookTokens.get(0).orElseThrow();
        long ownerBefore = ownerCzxid(group, topic);

        expireSession((ZooKeeperStore) keeper.store());
        // The member claims the partition again under its new session while the worker is still in the handler.
        await().atMost(WAIT).ignoreExceptions().until(() -> ownerCzxid(group, topic) != ownerBefore);
        release.countDown();

        await().atMost(WAIT).until(() -> hookTokens.size() >= 2);
        long second = hookTokens.get(hookTokens.size() - 1).orElseThrow();
        assertThat(second).as("the new claim's token").isGreaterThan(first);
        // The records come again under the new claim (the old claim's commits were fenced): they carry its token.
        await().atMost(WAIT).until(() -> handlerTokens.contains(OptionalLong.of(second)));
        assertThat(handlerTokens.get(0))
                .as("the held call's token: the claim its record was fetched under")
                .hasValue(first);
        int firstOfNew = handlerTokens.indexOf(OptionalLong.of(second));
        assertThat(handlerTokens.subList(0, firstOfNew))
                .as("calls on records of the first fetch")
                .containsOnly(OptionalLong.of(first));
    }

    /**
     * A poison record stops its partition (error policy STOP_PARTITION): lag status says STOP with the reason (the
     * container's stopped mark in the offset node), although the member is alive and committing. An operator's
     * {@code offsets reset --to-offset} past it (GroupAdmin, what the CLI runs) is adopted by the owner, and the
     * partition resumes from the reset point: the records after it are handled, the stored offset reaches the log end,
     * nothing is stopped, and the status is OK again.
     */
    @Test
    void anOperatorsResetPastAPoisonRecordResumesItsStoppedPartition() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> handled = new CopyOnWriteArrayList<>();
        send(topic, 0, "a", "poison", "b");
        ListenerContainer<String, String> c = started(container(newKeeper(), group, topic)
                .errorPolicy(ErrorPolicy.builder()
                        .otherwise(ErrorAction.stopPartition())
                        .build())
                .recordHandler(r -> {
                    if (r.value().equals("poison")) {
                        throw new IllegalStateException("poison");
                    }
                    handled.add(r.value());
                })
                .build());
        TopicPartition tp = new TopicPartition(topic, 0);
        await().atMost(WAIT).until(() -> c.stoppedPartitions().containsKey(tp));
        assertThat(c.stoppedPartitions().get(tp).offset()).isEqualTo(1);
        awaitStored(group, topic, 0, 1);
        send(topic, 0, "c");

        var log = captureWarnings(WORKER);
        try (GroupAdmin admin =
                ZooKeeperAdmin.builder().store(zk).logBounds(new AdminBounds()).build()) {
            // The stopped mark goes into the offset node with the next commit: STOP, saying why, lag 3.
            await().atMost(WAIT)
                    .until(() -> admin.status(group, Duration.ofMinutes(5)).status() == LagStatus.STOP);
            GroupStatus stopped = admin.status(group, Duration.ofMinutes(5));
            assertThat(stopped.partitions()).singleElement().satisfies(r -> {
                assertThat(r.logEnd()).hasValue(4);
                assertThat(r.committed()).hasValue(1);
                assertThat(r.status().lag()).hasValue(3);
                assertThat(r.status().reason())
                        .contains("stopped by its consumer at offset 1")
                        .contains("IllegalStateException: poison");
            });
            admin.executeReset(
                    group,
                    PartitionSelection.builder()
                            .partitions(topic, java.util.Set.of(0))
                            .build(),
                    new ResetSpec.ToOffset(2));
            await().atMost(WAIT).until(() -> handled.containsAll(List.of("a", "b", "c")));
            awaitStored(group, topic, 0, 4);
            assertThat(c.stoppedPartitions()).isEmpty();
            assertThat(c.pausedPartitions()).isEmpty();
            assertThat(handled).containsExactly("a", "b", "c");
            assertThat(warnings(log))
                    .anySatisfy(
                            w -> assertThat(w).contains(topic + "-0 stopped at offset 1 resumes " + "from offset 2"));
            GroupStatus after = admin.status(group, Duration.ofMinutes(5));
            assertThat(after.partitions()).singleElement().satisfies(r -> {
                assertThat(r.status().status()).isEqualTo(LagStatus.OK);
                assertThat(r.committed()).hasValue(4);
            });
            System.out.println(
                    "status while stopped: " + stopped.partitions() + "; after the reset: " + after.partitions());
        } finally {
            stopCapture(log, WORKER);
        }
    }

    /**
     * A handler that fails on every record's first attempt (a flaky downstream): each failed attempt used to log at
     * DEBUG only. Now the first one logs a WARN naming partition, offset and attempt, and the following ones within the
     * rate limit (10 s) are counted into the next line, not logged one by one.
     */
    @Test
    void failedHandlerCallsShowInOneRateLimitedWarn() throws Exception {
        String topic = newTopic(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        java.util.Set<String> failedOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();
        send(topic, 0, "a", "b", "c", "d", "e");
        var log = captureWarnings(DISPATCHER);
        try {
            started(container(newKeeper(), newName("g"), topic)
                    .errorPolicy(ErrorPolicy.builder()
                            .otherwise(ErrorAction.retry(2, Backoff.none()).thenSkip())
                            .build())
                    .recordHandler(r -> {
                        if (failedOnce.add(r.value())) {
                            throw new IllegalStateException("downstream unavailable");
                        }
                        handled.add(r.value());
                    })
                    .build());
            await().atMost(WAIT).until(() -> handled.size() == 5);
            List<String> failures = warnings(log).stream()
                    .filter(w -> w.contains("handler failed"))
                    .toList();
            assertThat(failures)
                    .singleElement()
                    .satisfies(w -> assertThat(w)
                            .contains("handler failed at " + topic + "-0 offset 0 (attempt 1 of 2)")
                            .contains("IllegalStateException: downstream unavailable"));
        } finally {
            stopCapture(log, DISPATCHER);
        }
    }

    /**
     * A handler that fails on every record, each skipped by the policy: the partition moves on, so its commit history
     * looks healthy (before: OK, caught up, while every record was thrown away). The container's failing mark makes
     * the status WARN, saying so; the first record handled again writes it away: OK.
     */
    @Test
    void aHandlerFailingOnEveryRecordShowsInTheStatusUntilARecordIsHandled() throws Exception {
        String topic = newTopic(1);
        String group = newName("g");
        List<String> handled = new CopyOnWriteArrayList<>();
        send(topic, 0, "bad-1", "bad-2", "bad-3", "bad-4");
        started(container(newKeeper(), group, topic)
                .errorPolicy(ErrorPolicy.builder().otherwise(ErrorAction.skip()).build())
                .recordHandler(r -> {
                    if (r.value().startsWith("bad")) {
                        throw new IllegalStateException("downstream refuses " + r.value());
                    }
                    handled.add(r.value());
                })
                .build());
        try (GroupAdmin admin =
                ZooKeeperAdmin.builder().store(zk).logBounds(new AdminBounds()).build()) {
            await().atMost(WAIT)
                    .until(() -> admin.status(group, Duration.ofMinutes(5)).status() == LagStatus.WARN);
            GroupStatus failing = admin.status(group, Duration.ofMinutes(5));
            assertThat(failing.partitions()).singleElement().satisfies(r -> {
                assertThat(r.committed()).hasValue(4);
                assertThat(r.status().reason())
                        .contains("handler is failing: 4 records in a row not handled")
                        .contains("the last at offset 3")
                        .contains("downstream refuses bad-4");
            });
            send(topic, 0, "good");
            await().atMost(WAIT)
                    .until(() -> handled.contains("good")
                            && admin.status(group, Duration.ofMinutes(5)).status() == LagStatus.OK);
            System.out.println("status while failing: " + failing.partitions());
        }
    }

    /** The log bounds the CLI reads from Kafka, here from the test's Admin client. */
    private static final class AdminBounds implements io.groupkeeper.zkprotocol.admin.LogBounds {
        @Override
        public java.util.Map<String, Integer> partitionCounts(java.util.Collection<String> topics) {
            try {
                java.util.Map<String, Integer> out = new java.util.HashMap<>();
                admin.describeTopics(topics)
                        .allTopicNames()
                        .get()
                        .forEach((t, d) -> out.put(t, d.partitions().size()));
                return out;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public java.util.Map<io.groupkeeper.TopicPartition, Long> earliest(
                java.util.Collection<io.groupkeeper.TopicPartition> partitions) {
            return offsets(partitions, org.apache.kafka.clients.admin.OffsetSpec.earliest());
        }

        @Override
        public java.util.Map<io.groupkeeper.TopicPartition, Long> latest(
                java.util.Collection<io.groupkeeper.TopicPartition> partitions) {
            return offsets(partitions, org.apache.kafka.clients.admin.OffsetSpec.latest());
        }

        @Override
        public java.util.Map<io.groupkeeper.TopicPartition, Long> offsetsForTimestamp(
                java.util.Collection<io.groupkeeper.TopicPartition> partitions, java.time.Instant timestamp) {
            return offsets(
                    partitions, org.apache.kafka.clients.admin.OffsetSpec.forTimestamp(timestamp.toEpochMilli()));
        }

        private static java.util.Map<io.groupkeeper.TopicPartition, Long> offsets(
                java.util.Collection<io.groupkeeper.TopicPartition> partitions,
                org.apache.kafka.clients.admin.OffsetSpec spec) {
            try {
                java.util.Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> query =
                        new java.util.HashMap<>();
                partitions.forEach(p -> query.put(new TopicPartition(p.topic(), p.partition()), spec));
                java.util.Map<io.groupkeeper.TopicPartition, Long> out = new java.util.HashMap<>();
                admin.listOffsets(query)
                        .all()
                        .get()
                        .forEach((k, v) ->
                                out.put(io.groupkeeper.TopicPartition.of(k.topic(), k.partition()), v.offset()));
                return out;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String describe() {
            return "the test's Kafka admin client";
        }
    }

    private static long ownerCzxid(String group, String topic) throws Exception {
        Stat s = zk.curator().checkExists().forPath(ZkPaths.owner(group, io.groupkeeper.TopicPartition.of(topic, 0)));
        return s == null ? -1 : s.getCzxid();
    }

    /** Expires a client's session on the server, as a long network partition would (the client then reconnects). */
    private static void expireSession(ZooKeeperStore store) throws Exception {
        org.apache.zookeeper.ZooKeeper client =
                store.curator().getZookeeperClient().getZooKeeper();
        org.apache.zookeeper.ZooKeeper imposter = new org.apache.zookeeper.ZooKeeper(
                servers.zkConnectString(), 10_000, e -> {}, client.getSessionId(), client.getSessionPasswd());
        await().atMost(Duration.ofSeconds(10)).until(() -> imposter.getState().isConnected());
        imposter.close();
    }
}
