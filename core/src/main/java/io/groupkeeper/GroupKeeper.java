package io.groupkeeper;

import io.groupkeeper.assignor.Assignors;
import io.groupkeeper.assignor.MemberSubscription;
import io.groupkeeper.assignor.PartitionAssignor;
import io.groupkeeper.internal.DefaultGroupMember;
import io.groupkeeper.internal.LiveMemberIds;
import io.groupkeeper.internal.MemberConfig;
import io.groupkeeper.metrics.GroupMetrics;
import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.TopicMetadataSource;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.spi.internal.Lifecycle;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The client: one {@link CoordinationStore} (for ZooKeeper, one session) hosting any number of group members.
 *
 * <p>Design notes. Each member runs its protocol on its own serial lane over a shared thread pool, so a thousand
 * members cost a handful of threads; the elected leader's rebalancer runs on a second lane so that a slow user
 * callback never delays a rebalance. Time ({@link Clock}), the scheduler and member-id generation are injectable
 * for deterministic tests. Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED; closing
 * closes every member still open (gracefully), then the store.
 */
public final class GroupKeeper implements AutoCloseable {

    private final CoordinationStore store;
    private final Clock clock;
    private final Supplier<String> memberIds;
    private final ExecutorService workers;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsExecutors;
    private final GroupMetrics metrics;
    private final ConnectionListener connectionMetrics;
    private final List<GroupMember> members = new ArrayList<>();
    /** One live member per group and member id in this keeper (one session), until its leave is over. */
    private final LiveMemberIds liveIds = new LiveMemberIds();

    private final Lifecycle lifecycle = new Lifecycle("GroupKeeper");

    private GroupKeeper(Builder b) {
        this.store = b.store;
        this.clock = b.clock;
        this.memberIds = b.memberIds;
        this.metrics = b.metrics;
        this.connectionMetrics = event -> metrics.connectionState(event.name().toLowerCase());
        this.ownsExecutors = b.scheduler == null;
        this.workers = ownsExecutors ? Executors.newCachedThreadPool(daemonThreads("groupkeeper-worker")) : b.workers;
        this.scheduler = ownsExecutors
                ? Executors.newSingleThreadScheduledExecutor(daemonThreads("groupkeeper-timer"))
                : b.scheduler;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Starts the store (connects). Throws if it cannot connect. */
    public synchronized GroupKeeper start() {
        lifecycle.start();
        store.addConnectionListener(connectionMetrics);
        try {
            store.start();
        } catch (RuntimeException e) {
            store.removeConnectionListener(connectionMetrics);
            lifecycle.close();
            shutdownExecutors();
            throw e;
        }
        return this;
    }

    /** A builder for a member of {@code groupId}. */
    public MemberBuilder member(String groupId) {
        return new MemberBuilder(Names.requireValid("group id", groupId));
    }

    /** The store's topic registry, for partitioned work that is not Kafka. */
    public TopicRegistry topics() {
        return store.topics();
    }

    public CoordinationStore store() {
        return store;
    }

    /** Where this client and its members report metrics ({@link GroupMetrics#NOOP} unless configured). */
    public GroupMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        List<GroupMember> open;
        synchronized (this) {
            if (lifecycle.close() == Lifecycle.State.CLOSED) {
                return;
            }
            open = new ArrayList<>(members);
            members.clear();
        }
        for (GroupMember m : open) {
            m.close();
        }
        store.removeConnectionListener(connectionMetrics);
        store.close();
        shutdownExecutors();
    }

    private synchronized boolean isClosed() {
        return lifecycle.isClosed();
    }

    private void shutdownExecutors() {
        if (ownsExecutors) {
            scheduler.shutdownNow();
            workers.shutdown();
            try {
                workers.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            workers.shutdownNow();
        }
    }

    synchronized void forget(GroupMember member) {
        members.remove(member);
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Configures a {@link GroupKeeper}; {@link #build()} fails fast naming the bad option. */
    public static final class Builder {
        private CoordinationStore store;
        private Clock clock = Clock.systemUTC();
        private Supplier<String> memberIds =
                () -> "m-" + UUID.randomUUID().toString().substring(0, 13);
        private ExecutorService workers;
        private ScheduledExecutorService scheduler;
        private GroupMetrics metrics = GroupMetrics.NOOP;

        private Builder() {}

        /**
         * Records metrics, e.g. {@code new MicrometerGroupMetrics(registry)} (Micrometer is an optional dependency).
         */
        public Builder metrics(GroupMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** The coordination store, e.g. {@code ZooKeeperStore.builder()...build()}. Required. */
        public Builder store(CoordinationStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The clock for timestamps and grace periods (tests inject a fixed or manual clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Generates ids for members without an instance id (tests inject a deterministic sequence). */
        public Builder memberIds(Supplier<String> memberIds) {
            this.memberIds = Objects.requireNonNull(memberIds, "memberIds");
            return this;
        }

        /** Runs the protocol on these executors instead of owned ones; the caller shuts them down. */
        public Builder executors(ExecutorService workers, ScheduledExecutorService scheduler) {
            this.workers = Objects.requireNonNull(workers, "workers");
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        public GroupKeeper build() {
            if (store == null) {
                throw new IllegalStateException("GroupKeeper.builder(): store is required");
            }
            return new GroupKeeper(this);
        }
    }

    /** Configures one member; {@link #build()} validates every option and fails fast naming the bad one. */
    public final class MemberBuilder {
        private final String groupId;
        private final Set<String> topics = new LinkedHashSet<>();
        private String instanceId;
        private PartitionAssignor assignor = Assignors.defaultAssignor();
        private RebalanceListener listener = RebalanceListener.NOOP;
        private TopicMetadataSource metadata;
        private Duration settleDelay = Duration.ZERO;
        private Duration staticGracePeriod = Duration.ofSeconds(30);
        private Duration registrationTimeout = Duration.ofSeconds(30);
        private String host;
        private String rack;

        private MemberBuilder(String groupId) {
            this.groupId = groupId;
        }

        /** Topics to consume; at least one. */
        public MemberBuilder topics(String... topics) {
            for (String t : topics) {
                this.topics.add(Names.requireValid("topic", t));
            }
            return this;
        }

        public MemberBuilder topics(Collection<String> topics) {
            return topics(topics.toArray(String[]::new));
        }

        /**
         * Makes this a static member: its id is {@code instanceId}, and if it leaves and returns within the static
         * grace period, it gets its partitions back without a rebalance of the others (as Kafka's KIP-345). One id is
         * held by one live member at a time: another process's is refused, and so is another of this keeper's until
         * the first has finished leaving (see {@link #registrationTimeout}).
         */
        public MemberBuilder instanceId(String instanceId) {
            this.instanceId = Names.requireValid("instance id", instanceId);
            return this;
        }

        /** The assignor by name: {@code sticky} (default), {@code range}, {@code round-robin}. */
        public MemberBuilder assignor(String name) {
            this.assignor = Assignors.byName(name);
            return this;
        }

        public MemberBuilder assignor(PartitionAssignor assignor) {
            this.assignor = Objects.requireNonNull(assignor, "assignor");
            return this;
        }

        public MemberBuilder listener(RebalanceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Where partition counts come from; default: the store's topic registry. */
        public MemberBuilder metadata(TopicMetadataSource metadata) {
            this.metadata = Objects.requireNonNull(metadata, "metadata");
            return this;
        }

        /**
         * How long the leader waits after a change before computing a new generation (default 0). Changes that
         * arrive while a rebalance is being computed are always coalesced into the next one.
         */
        public MemberBuilder settleDelay(Duration settleDelay) {
            this.settleDelay = requireNonNegative("settleDelay", settleDelay);
            return this;
        }

        /** How long a departed static member's partitions are kept for it (default 30 s). */
        public MemberBuilder staticGracePeriod(Duration grace) {
            this.staticGracePeriod = requireNonNegative("staticGracePeriod", grace);
            return this;
        }

        /**
         * How long {@link GroupMember#start()} waits for its member id to become free when another session holds it
         * (a static member restarted right after a crash: its predecessor's session has not expired yet), or for a
         * member of this keeper with the same id to finish leaving (one keeper has at most one live member per group
         * and instance id). Default 30 s; after it, start fails with {@link io.groupkeeper.spi.MemberIdInUseException}
         * naming the group and the id.
         */
        public MemberBuilder registrationTimeout(Duration timeout) {
            this.registrationTimeout = requireNonNegative("registrationTimeout", timeout);
            return this;
        }

        /** The host recorded in the member node; default: this machine's host name. */
        public MemberBuilder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /**
         * The rack (availability zone, data centre) this member runs in, as the partitions' replicas name theirs
         * ({@link TopicMetadataSource#partitionRacks}; for Kafka the brokers' {@code broker.rack}). It travels in the
         * member node, and the sticky assignor prefers, where balance allows, to give this member partitions with a
         * replica in its rack. Default: none (the member is neither local nor remote to any partition). The Kafka
         * adapter sets it from the consumer property {@code client.rack}.
         *
         * @throws IllegalArgumentException if blank, longer than 255 characters or holding a control character
         */
        public MemberBuilder rack(String rack) {
            this.rack = MemberSubscription.requireValidRack(rack);
            return this;
        }

        public GroupMember build() {
            if (topics.isEmpty()) {
                throw new IllegalStateException("member of group " + groupId + ": at least one topic is required");
            }
            synchronized (GroupKeeper.this) {
                lifecycle.requireStarted("before building members");
            }
            String memberId =
                    instanceId != null ? instanceId : Names.requireValid("generated member id", memberIds.get());
            MemberConfig config = new MemberConfig(
                    groupId,
                    memberId,
                    Optional.ofNullable(instanceId),
                    host != null ? host : localHost(),
                    Set.copyOf(topics),
                    assignor,
                    listener,
                    metadata != null ? metadata : store.topics(),
                    settleDelay,
                    staticGracePeriod,
                    metrics,
                    registrationTimeout,
                    Optional.ofNullable(rack));
            DefaultGroupMember member = new DefaultGroupMember(
                    config,
                    store,
                    clock,
                    workers,
                    scheduler,
                    GroupKeeper.this::forget,
                    GroupKeeper.this::isClosed,
                    liveIds);
            synchronized (GroupKeeper.this) {
                members.add(member);
            }
            return member;
        }
    }

    private static Duration requireNonNegative(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + d);
        }
        return d;
    }

    private static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
