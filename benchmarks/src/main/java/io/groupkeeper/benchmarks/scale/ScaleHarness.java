package io.groupkeeper.benchmarks.scale;

import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.benchmarks.support.Fmt;
import io.groupkeeper.benchmarks.support.GenerationWatch;
import io.groupkeeper.benchmarks.support.OwnershipTracker;
import io.groupkeeper.benchmarks.support.Stats;
import io.groupkeeper.benchmarks.support.ZkActivity;
import io.groupkeeper.zookeeper.StoreStats;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * Item 3 of issue 7 on ZooKeeper alone: one member joins a running group of N members over P partitions (one topic
 * in the ZooKeeper topic registry), groupkeeper with its default settings (sticky, settle delay 0). Members share
 * {@code ceil(N / membersPerSession)} {@link ZooKeeperStore}s (sessions); the joiner uses one of them too.
 *
 * <p>Per join: the time from {@code member.start()} until every partition is owned by exactly one member and the
 * group is balanced (the last ownership change, from the members' own listener callbacks), split at the instant the
 * leader's new generation reaches an outside watcher of the {@code assignment} node ("publish"); and the
 * {@link io.groupkeeper.zookeeper.StoreStats} delta of all sessions: watch events, writes (each op of a transaction counted), transactions,
 * reads. After each join the joiner leaves gracefully and the group settles again (not measured).
 */
public final class ScaleHarness {

    public record Size(int members, int partitions) {
        @Override
        public String toString() {
            return members + "x" + partitions;
        }
    }

    public record Config(String zkConnect, List<Size> sizes, int repetitions, int membersPerSession, long timeoutMs) {}

    /** One join. Times in ms from {@code start()}; {@code moved}: partitions that changed owner. */
    public record Join(
            double totalMs,
            double publishMs,
            double claimsMs,
            int moved,
            long watchEvents,
            long writes,
            long transactions,
            long reads) {}

    public record Result(Size size, int sessions, double setupMs, List<Join> joins, int overlaps) {
        public Stats total() {
            return Stats.of(joins.stream().map(Join::totalMs).toList());
        }

        public Stats publish() {
            return Stats.of(joins.stream().map(Join::publishMs).toList());
        }

        public Stats claims() {
            return Stats.of(joins.stream().map(Join::claimsMs).toList());
        }

        public double median(ToDoubleFunction<Join> f) {
            return Stats.of(joins.stream().map(j -> f.applyAsDouble(j)).toList())
                    .p50();
        }
    }

    private final Config config;
    private final PrintStream out;

    public ScaleHarness(Config config, PrintStream out) {
        this.config = config;
        this.out = out;
    }

    public List<Result> run() throws Exception {
        List<Result> results = new ArrayList<>();
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(config.zkConnect(), new RetryOneTime(100))) {
            admin.start();
            admin.blockUntilConnected();
            for (Size size : config.sizes()) {
                results.add(runSize(admin, size));
            }
        }
        return results;
    }

    private Result runSize(CuratorFramework admin, Size size) throws Exception {
        int sessions = Math.max(1, (size.members() + config.membersPerSession() - 1) / config.membersPerSession());
        String tag = size.members() + "x" + size.partitions() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20));
        String topic = "scale-" + tag;
        String group = "scale-" + tag;
        List<GroupKeeper> keepers = new ArrayList<>();
        List<ZooKeeperStore> stores = new ArrayList<>();
        List<GroupMember> members = new ArrayList<>();
        OwnershipTracker tracker = new OwnershipTracker(topic, size.partitions());
        ExecutorService starter = Executors.newFixedThreadPool(4);
        try {
            for (int s = 0; s < sessions; s++) {
                ZooKeeperStore store = ZooKeeperStore.builder()
                        .connectString(config.zkConnect())
                        .build();
                keepers.add(GroupKeeper.builder().store(store).build().start());
                stores.add(store);
            }
            keepers.get(0).topics().ensureTopic(topic, size.partitions());
            ZkActivity activity = new ZkActivity(stores);
            GenerationWatch watch = new GenerationWatch(admin, "/groupkeeper", group);

            long t0 = System.nanoTime();
            List<Future<?>> starts = new ArrayList<>();
            for (int i = 0; i < size.members(); i++) {
                String name = "member-" + i;
                GroupMember m = keepers.get(i % sessions)
                        .member(group)
                        .topics(topic)
                        .listener(tracker.listenerFor(name))
                        .build();
                members.add(m);
                starts.add(starter.submit(m::start));
            }
            for (Future<?> f : starts) {
                f.get();
            }
            if (!tracker.awaitCompleteAndBalanced(config.timeoutMs())) {
                throw new IllegalStateException(
                        size + ": group did not converge in " + config.timeoutMs() + " ms: " + tracker.describe());
            }
            double setupMs = Fmt.nanosToMs(System.nanoTime() - t0);
            activity.awaitQuiet(500, config.timeoutMs());
            out.printf(
                    "  %s: %d members on %d sessions converged in %s ms; joining %d times%n",
                    size, size.members(), sessions, Fmt.ms(setupMs), config.repetitions());

            List<Join> joins = new ArrayList<>();
            for (int rep = 0; rep < config.repetitions(); rep++) {
                String name = "joiner-" + rep;
                GroupMember joiner = keepers.get(rep % sessions)
                        .member(group)
                        .topics(topic)
                        .listener(tracker.listenerFor(name))
                        .build();
                String[] ownersBefore = tracker.owners();
                StoreStats before = activity.snapshot();
                AtomicLong published = watch.nextPublish();
                long start = System.nanoTime();
                joiner.start();
                if (!tracker.awaitCompleteAndBalanced(config.timeoutMs()) || tracker.countOf(name) == 0) {
                    throw new IllegalStateException(
                            size + ": join " + rep + " did not converge: " + tracker.describe());
                }
                activity.awaitQuiet(300, config.timeoutMs());
                long end = tracker.lastChangeNanos();
                StoreStats cost = activity.snapshot().minus(before);
                String[] ownersAfter = tracker.owners();
                int moved = 0;
                for (int p = 0; p < ownersAfter.length; p++) {
                    if (!ownersAfter[p].equals(ownersBefore[p])) {
                        moved++;
                    }
                }
                long pub = published.get() == 0 ? end : published.get();
                Join j = new Join(
                        Fmt.nanosToMs(end - start),
                        Fmt.nanosToMs(pub - start),
                        Fmt.nanosToMs(end - pub),
                        moved,
                        cost.watchEvents(),
                        cost.writes(),
                        cost.transactions(),
                        cost.reads());
                joins.add(j);
                out.printf(
                        "    join %d: %s ms (publish %s + claims %s), moved %d, watch events %d, writes %d, "
                                + "transactions %d, reads %d%n",
                        rep + 1,
                        Fmt.ms(j.totalMs()),
                        Fmt.ms(j.publishMs()),
                        Fmt.ms(j.claimsMs()),
                        j.moved(),
                        j.watchEvents(),
                        j.writes(),
                        j.transactions(),
                        j.reads());

                joiner.close();
                tracker.forget(name);
                if (!tracker.awaitCompleteAndBalanced(config.timeoutMs())) {
                    throw new IllegalStateException(
                            size + ": leave after join " + rep + " did not converge: " + tracker.describe());
                }
                activity.awaitQuiet(300, config.timeoutMs());
            }
            return new Result(size, sessions, setupMs, joins, tracker.overlaps());
        } finally {
            starter.shutdownNow();
            ExecutorService closer = Executors.newFixedThreadPool(4);
            for (GroupMember m : members) {
                closer.submit(m::close);
            }
            closer.shutdown();
            closer.awaitTermination(120, TimeUnit.SECONDS);
            for (GroupKeeper k : keepers) {
                k.close();
            }
        }
    }
}
