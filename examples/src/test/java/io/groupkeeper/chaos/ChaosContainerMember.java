package io.groupkeeper.chaos;

import static org.awaitility.Awaitility.await;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.chaos.ChaosLedger.End;
import io.groupkeeper.chaos.ChaosLedger.Ownership;
import io.groupkeeper.chaos.ChaosLedger.Processed;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import io.groupkeeper.examples.ZkProxy;
import io.groupkeeper.kafka.StartPosition;
import io.groupkeeper.kafka.container.ErrorAction;
import io.groupkeeper.kafka.container.ErrorPolicy;
import io.groupkeeper.kafka.container.HandlerContext;
import io.groupkeeper.kafka.container.ListenerContainer;
import io.groupkeeper.kafka.container.Ordering;
import io.groupkeeper.kafka.container.Recovery;
import io.groupkeeper.kafka.container.WorkerStatus;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One in-JVM member of a chaos run as a {@link ListenerContainer} in an {@link Ordering} with a parallelism: its own
 * {@link GroupKeeper} and {@link ZooKeeperStore} behind its own {@link ZkProxy}, as {@link ChaosMember}, but records
 * are handled by the container's workers, several at once, each taking a random 0–{@code handlerMaxMillis} ms so that
 * they complete out of order. Every handled record is written to the run's fenced sink under the token its handler
 * call carries ({@link HandlerContext#fencingToken()}) and recorded in the ledger with its key, processing interval
 * and that token (the claim it was processed under; each interval carries its claim's token too).
 *
 * <p>Ownership. The container tells its assignments ({@code onPartitionsAssigned}: the sink is opened with the claim's
 * token, which starts the interval) but not its revocations, and a record's handler call carries the claim it was
 * fetched under. So an interval runs from one assignment (the sink's open) to the end of the last record whose handler
 * started in it — every assignment starts a new one, even under the same token (a connection in doubt stops
 * processing without commit and the member goes on) — the last moment user code held records of it, what {@link ChaosMember} records too — and is
 * written when the member ends. When the claim ended is watched (every 20 ms, the worker's owned partitions; or the
 * next assignment of the partition) for the notice time and whether it was lost (the member cut off) or revoked.
 *
 * <p>A crash stops recording at once under the member's lock: a record in flight then never finishes (its handler
 * blocks until {@link #cleanUp()}), so nothing of it completes after the crash instant, as in a killed process.
 */
final class ChaosContainerMember implements ChaosConsumer {

    /** How the container runs: ordering, workers per member, and the handler's random time (0 to that, ms). */
    record Mode(Ordering ordering, int parallelism, int handlerMaxMillis) {

        /** From {@code -Dchaos.ordering} (absent: empty, the plain consumer loop), {@code -Dchaos.parallelism}, and
         * {@code -Dchaos.handler.ms}. */
        static Optional<Mode> fromSystemProperties() {
            String o = System.getProperty("chaos.ordering", "").trim();
            if (o.isEmpty()) {
                return Optional.empty();
            }
            Ordering ordering;
            try {
                ordering = Ordering.valueOf(o.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("chaos.ordering must be PARTITION, KEY or UNORDERED, was " + o);
            }
            int parallelism = Integer.getInteger("chaos.parallelism", 8);
            int handlerMs = Integer.getInteger("chaos.handler.ms", 5);
            if (parallelism < 1 || handlerMs < 0) {
                throw new IllegalArgumentException("chaos.parallelism must be >= 1 and chaos.handler.ms >= 0, were "
                        + parallelism + " and " + handlerMs);
            }
            return Optional.of(new Mode(ordering, parallelism, handlerMs));
        }

        @Override
        public String toString() {
            return "ordering " + ordering + ", parallelism " + parallelism + ", handler 0-" + handlerMaxMillis + " ms";
        }
    }

    /** One claim of one partition: the interval starts when the sink took its token. */
    private static final class Claim {
        final int partition;
        final long token;
        final long from;
        volatile long lastDone;
        volatile long endedAt = -1;
        volatile End end;

        Claim(int partition, long token, long from) {
            this.partition = partition;
            this.token = token;
            this.from = from;
            this.lastDone = from;
        }
    }

    private final String group;
    private final String name;
    private final ChaosLedger ledger;
    private final Mode mode;
    private final ChaosConnection zk;
    private final ZkProxy proxy;
    private final ZooKeeperStore store;
    private final GroupKeeper keeper;
    private final ListenerContainer<String, String> container;
    private final Object lock = new Object();
    private final Map<Integer, Claim> current = new ConcurrentHashMap<>();
    private final Map<Long, Claim> byToken = new ConcurrentHashMap<>();
    private final List<Claim> claims = new ArrayList<>(); // every claim, under lock
    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch wake = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final Thread watcher;
    private volatile boolean stopping;
    private volatile boolean halted;
    private volatile long stallUntil;
    private volatile Throwable failure;

    private ChaosContainerMember(String group, String name, ChaosMember.Config config, Mode mode, ChaosLedger ledger)
            throws IOException {
        this.group = group;
        this.name = name;
        this.ledger = ledger;
        this.mode = mode;
        this.zk = new ChaosConnection(name, config, ledger);
        this.proxy = zk.proxy;
        this.store = zk.store;
        this.keeper = zk.keeper;
        this.container = ListenerContainer.<String, String>builder(keeper)
                .group(group)
                .topics(config.topic())
                .kafkaProperty("bootstrap.servers", config.bootstrap())
                .kafkaProperty("max.poll.records", config.maxPollRecords())
                .kafkaProperty("fetch.max.wait.ms", 100)
                .deserializers(new StringDeserializer(), new StringDeserializer())
                .ordering(mode.ordering())
                .parallelism(mode.parallelism())
                .pollTimeout(Duration.ofMillis(100))
                .watchdog(Duration.ofSeconds(60)) // stalls and zombie batches are the faults, not stuck handlers
                .stopDeadline(config.revocationTimeout())
                // a live member's handler never throws: a failure stops its partition, visibly (the run cannot settle)
                .errorPolicy(ErrorPolicy.builder()
                        .deserializationFailure(Recovery.SKIP)
                        .otherwise(ErrorAction.stopPartition())
                        .build())
                .consumerOptions(c -> c.startPosition(StartPosition.earliest())
                        .commitInterval(config.commitInterval())
                        .revocationTimeout(config.revocationTimeout())
                        .metadataRefreshInterval(Duration.ofSeconds(1)))
                .onPartitionsAssigned((partitions, seeker) -> {
                    for (TopicPartition tp : partitions) {
                        seeker.fencingToken(tp).ifPresent(token -> opened(tp.partition(), token));
                    }
                })
                .recordHandler(this::handle)
                .build();
        this.watcher = new Thread(this::watch, "chaos-watch-" + name);
        this.watcher.setDaemon(true);
    }

    /** Connects, joins the group and starts the container. */
    static ChaosContainerMember start(
            String group, String name, ChaosMember.Config config, Mode mode, ChaosLedger ledger) throws IOException {
        ChaosContainerMember m = new ChaosContainerMember(group, name, config, mode, ledger);
        m.zk.start(m.container::start);
        m.watcher.start();
        return m;
    }

    /** A new claim (the worker's thread, before its first fetch): the sink takes the token, the interval starts. */
    private void opened(int partition, long token) {
        synchronized (lock) {
            if (halted) {
                return;
            }
            Claim before = current.get(partition);
            long now = System.currentTimeMillis();
            if (before != null) {
                // lost and given back between two looks of the watcher — possibly under the same claim and token
                // (a connection in doubt stops processing without commit, then the member goes on): a new interval,
                // so that what the consumer replays from its last commit is bounded by the loss
                ended(before, now);
            }
            long at = ledger.sink().open(group, partition, name, token);
            Claim c = new Claim(partition, token, at);
            current.put(partition, c);
            byToken.put(token, c);
            claims.add(c);
        }
    }

    private void handle(ConsumerRecord<String, String> r) throws Exception {
        long at = System.currentTimeMillis();
        long token = HandlerContext.fencingToken().orElse(SinkOp.NO_TOKEN);
        Claim claim = byToken.get(token); // the interval it started in (a later one of the same token may follow)
        maybeStall();
        int ms = mode.handlerMaxMillis() == 0 ? 0 : ThreadLocalRandom.current().nextInt(mode.handlerMaxMillis() + 1);
        if (ms > 0) {
            wake.await(ms, TimeUnit.MILLISECONDS); // the handler's work (bounded; ended early by leave or crash)
        }
        synchronized (lock) {
            if (!halted) {
                ledger.sink().write(group, r.partition(), r.offset(), name, token);
                long doneAt = System.currentTimeMillis();
                ledger.processed(new Processed(group, r.partition(), r.offset(), name, at, doneAt, r.key(), token));
                if (claim != null && claim.partition == r.partition() && doneAt > claim.lastDone) {
                    claim.lastDone = doneAt;
                }
                return;
            }
        }
        // crashed: this record was in flight and never finishes (a killed process); the container is stopped later
        released.await(60, TimeUnit.SECONDS);
        throw new IllegalStateException(name + " crashed with offset " + r.offset() + " in flight");
    }

    private void maybeStall() throws InterruptedException {
        long until;
        synchronized (lock) { // one record takes the stall
            until = stallUntil;
            stallUntil = 0;
        }
        long remaining = until - System.currentTimeMillis();
        if (until > 0 && remaining > 0) {
            wake.await(remaining, TimeUnit.MILLISECONDS); // the injected fault: user code blocked, bounded
        }
    }

    /** Notices claims that ended: their partition is no longer in the worker's assignment. */
    private void watch() {
        while (done.getCount() > 0 && !halted) {
            try {
                Set<Integer> owned = new HashSet<>();
                for (WorkerStatus w : container.workers()) {
                    w.owned().forEach(tp -> owned.add(tp.partition()));
                }
                long now = System.currentTimeMillis();
                synchronized (lock) {
                    if (!halted) {
                        for (Claim c : List.copyOf(current.values())) {
                            if (!owned.contains(c.partition)
                                    && now - c.from > 50) { // the hook runs inside the assignment
                                ended(c, now);
                            }
                        }
                    }
                }
                done.await(20, TimeUnit.MILLISECONDS); // the watcher's pace (bounded)
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a status read while the container stops: look again
            }
        }
    }

    /** Under lock. */
    private void ended(Claim c, long at) {
        current.remove(c.partition, c);
        c.endedAt = at;
        c.end = proxy.isPartitioned() ? End.LOST : End.REVOKED;
    }

    /** Writes every claim as an ownership interval (once, when the member is over). */
    private void flush(long stoppedAt, End stillOpen) {
        synchronized (lock) {
            for (Claim c : claims) {
                End end = c.end;
                long notified = c.endedAt;
                if (end == null) {
                    end = stillOpen;
                    notified = stoppedAt;
                }
                long to = Math.max(c.from, c.lastDone);
                ledger.ownership(
                        new Ownership(group, c.partition, name, c.from, to, end, Math.max(to, notified), c.token));
            }
            claims.clear();
            current.clear();
        }
    }

    // ------------------------------------------------------------------ faults

    @Override
    public String group() {
        return group;
    }

    @Override
    public String name() {
        return name;
    }

    /** Graceful leave, asynchronously: in-flight records finish, final commit, release. */
    @Override
    public void leave() {
        stopping = true;
        wake.countDown();
        CompletableFuture.runAsync(() -> {
            try {
                container.stop(Duration.ofSeconds(25));
                long at = System.currentTimeMillis();
                flush(at, End.REVOKED);
                keeper.close();
                proxy.close();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done.countDown();
            }
        });
    }

    /** Crash: nothing more finishes from now on; then the session ends (closed, or abandoned to time out). */
    @Override
    public long crash(boolean abandon) {
        long at;
        synchronized (lock) {
            halted = true;
            at = System.currentTimeMillis();
        }
        wake.countDown();
        if (abandon) {
            proxy.partition(); // from now on the servers hear nothing from this member, not even a closeSession
        } else {
            store.close(); // closeSession: its ephemeral nodes go at once
        }
        flush(at, End.CRASHED);
        return at;
    }

    @Override
    public void cleanUp() {
        store.close();
        try {
            container.stop(Duration.ofSeconds(1)); // its in-flight handlers are blocked: left behind
        } catch (RuntimeException e) {
            // the stop of a crashed member: nothing it does reaches the group any more
        }
        released.countDown();
        keeper.close();
        proxy.close();
        done.countDown();
    }

    @Override
    public void partition(long millis) {
        zk.partition(millis);
    }

    @Override
    public boolean isPartitioned() {
        return zk.isPartitioned();
    }

    @Override
    public void stall(long millis) {
        stallUntil = System.currentTimeMillis() + millis;
    }

    @Override
    public boolean supportsSessionFaults() {
        return true;
    }

    @Override
    public boolean isLeader() {
        return done.getCount() > 0 && !halted && container.workers().stream().anyMatch(WorkerStatus::leader);
    }

    @Override
    public Optional<Integer> zkServerPort() {
        return zk.zkServerPort();
    }

    @Override
    public void awaitDone(Duration timeout) {
        await().atMost(timeout).until(() -> done.getCount() == 0);
    }

    @Override
    public Optional<String> failure() {
        Throwable t = failure;
        if (t == null && !halted && !stopping) {
            t = container.failure().orElse(null);
        }
        return ChaosConnection.failure(name, t);
    }

    @Override
    public String toString() {
        return name + " (" + mode.ordering() + ")";
    }
}
