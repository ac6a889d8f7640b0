package io.groupkeeper.examples;

import io.groupkeeper.CommitResult;
import io.groupkeeper.GroupKeeper;
import io.groupkeeper.GroupMember;
import io.groupkeeper.RebalanceListener;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.embedded.EmbeddedZooKeeper;
import io.groupkeeper.zookeeper.ZooKeeperStore;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * groupkeeper without Kafka: a nightly batch job cut into N shards, registered as a "topic" in ZooKeeper's topic
 * registry, processed by a few workers that split the shards between them. Each shard is a list of items; a worker
 * commits the index of the next item after each one, so when a worker leaves in the middle, the shard's next owner
 * resumes exactly there. The same group, ownership and offset machinery as the Kafka adapter, on any partitioned work.
 */
@Command(
        name = "batch",
        mixinStandardHelpOptions = true,
        description = {
            "A non-Kafka example: N shards of a batch job split among workers through ZooKeeper.",
            "A worker leaves and another joins mid-run; every item is processed exactly once. Exit 0 if so."
        })
final class ShardedBatchExample implements Callable<Integer> {

    @Option(names = "--zk", paramLabel = "HOST:PORT", description = "ZooKeeper (default: one in this process)")
    String zk;

    @Option(
            names = "--namespace",
            defaultValue = "groupkeeper",
            description = "ZooKeeper root (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(names = "--shards", defaultValue = "8", description = "default: ${DEFAULT-VALUE}")
    int shards;

    @Option(names = "--items", defaultValue = "40", description = "items per shard (default: ${DEFAULT-VALUE})")
    int items;

    @Option(
            names = "--item-ms",
            defaultValue = "10",
            description = "simulated work per item (default: ${DEFAULT-VALUE})")
    long itemMillis;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        EmbeddedZooKeeper embedded = null;
        String connect = zk;
        if (connect == null) {
            embedded = EmbeddedZooKeeper.startDefault();
            connect = embedded.connectString();
            out.println("Started ZooKeeper in this process at " + connect);
        }
        String run = Long.toString(System.currentTimeMillis() % 1_000_000, 36);
        String job = "nightly-batch-" + run;
        String group = "batch-workers-" + run;
        AtomicIntegerArray processed = new AtomicIntegerArray(shards * items);
        List<Worker> workers = new ArrayList<>();
        try (GroupKeeper registry = keeper(connect)) {
            registry.topics().ensureTopic(job, shards);
            out.printf(
                    "Registered job %s with %d shards of %d items in ZooKeeper (/%s/topics/%s).%n",
                    job, shards, items, namespace, job);

            for (int i = 1; i <= 3; i++) {
                workers.add(new Worker("worker-" + i, keeper(connect), group, job, processed).start());
            }
            awaitOwned(workers, shards);
            printOwnership(workers);

            awaitProgress(processed, shards * items / 3);
            out.println(
                    "A third of the work is done. worker-3 leaves (it finishes its current item, commits, releases).");
            workers.get(2).leave();
            awaitOwned(workers.subList(0, 2), shards);
            printOwnership(workers.subList(0, 2));

            awaitProgress(processed, shards * items * 2 / 3);
            out.println("Two thirds done. worker-4 joins and takes over some shards where they stand.");
            workers.add(new Worker("worker-4", keeper(connect), group, job, processed).start());
            awaitProgress(processed, shards * items);
            printOwnership(List.of(workers.get(0), workers.get(1), workers.get(3)));

            int once = 0;
            int twice = 0;
            int never = 0;
            for (int i = 0; i < processed.length(); i++) {
                switch (processed.get(i)) {
                    case 0 -> never++;
                    case 1 -> once++;
                    default -> twice++;
                }
            }
            out.println();
            for (Worker w : workers) {
                out.printf("  %s processed %d items%n", w.name, w.done.get());
            }
            boolean held = once == shards * items && twice == 0 && never == 0;
            out.printf(
                    "%d items: %d processed exactly once, %d more than once, %d never.%n",
                    shards * items, once, twice, never);
            out.println(held ? "Every item of every shard was processed exactly once." : "The promise did NOT hold.");
            return held ? 0 : 1;
        } finally {
            for (Worker w : workers) {
                w.leave();
            }
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private GroupKeeper keeper(String connect) {
        return GroupKeeper.builder()
                .store(ZooKeeperStore.builder()
                        .connectString(connect)
                        .namespace(namespace)
                        .build())
                .build()
                .start();
    }

    private void printOwnership(List<Worker> workers) {
        for (Worker w : workers) {
            out.printf(
                    "  %s owns shards %s%n",
                    w.name,
                    w.member.assignment().stream()
                            .map(TopicPartition::partition)
                            .toList());
        }
    }

    private static void awaitOwned(List<Worker> workers, int shards) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (workers.stream().mapToInt(w -> w.member.assignment().size()).sum() != shards
                || workers.stream().anyMatch(w -> w.member.assignment().isEmpty())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("shards were not all owned within 60 s");
            }
            Thread.sleep(20);
        }
    }

    private static void awaitProgress(AtomicIntegerArray processed, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (true) {
            int done = 0;
            for (int i = 0; i < processed.length(); i++) {
                done += processed.get(i) > 0 ? 1 : 0;
            }
            if (done >= atLeast) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the batch made no progress for 120 s");
            }
            Thread.sleep(20);
        }
    }

    /**
     * One worker: a group member plus a thread that processes the shards it owns, one item at a time. The lock makes
     * revocation wait for the item in progress and its commit: the shard's next owner starts only after that.
     */
    private final class Worker {
        final String name;
        final String job;
        final GroupKeeper keeper;
        final GroupMember member;
        final AtomicInteger done = new AtomicInteger();
        private final AtomicIntegerArray processed;
        private final Object lock = new Object();
        private final Map<Integer, Integer> next = new ConcurrentHashMap<>(); // shard -> next item, owned shards only
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private boolean left;

        Worker(String name, GroupKeeper keeper, String group, String job, AtomicIntegerArray processed) {
            this.name = name;
            this.job = job;
            this.keeper = keeper;
            this.processed = processed;
            this.member = keeper.member(group)
                    .topics(job)
                    .listener(new RebalanceListener() {
                        @Override
                        public void onPartitionsAssigned(SortedMap<TopicPartition, OptionalLong> shards) {
                            synchronized (lock) {
                                shards.forEach((tp, offset) -> next.put(tp.partition(), (int) offset.orElse(0)));
                            }
                        }

                        @Override
                        public void onPartitionsRevoked(SortedSet<TopicPartition> shards) {
                            synchronized (lock) { // waits for the item in progress; each item was committed already
                                shards.forEach(tp -> next.remove(tp.partition()));
                            }
                        }

                        @Override
                        public void onPartitionsLost(SortedSet<TopicPartition> shards) {
                            onPartitionsRevoked(shards);
                        }

                        @Override
                        public void onOffsetsChanged(SortedSet<TopicPartition> shards) {
                            synchronized (lock) {
                                CommitResult r = member.refresh(shards);
                                r.adoptedOffsets().forEach((tp, o) -> next.put(tp.partition(), (int) o.orElse(0)));
                            }
                        }
                    })
                    .build();
            this.thread = new Thread(this::work, name);
            this.thread.setDaemon(true);
        }

        Worker start() {
            member.start();
            thread.start();
            return this;
        }

        private void work() {
            while (running.get()) {
                boolean didSomething = false;
                for (Integer shard : new TreeMap<>(next).keySet()) {
                    synchronized (lock) {
                        Integer item = next.get(shard);
                        if (item == null || item >= items) {
                            continue;
                        }
                        processItem(shard, item);
                        CommitResult r = member.commit(Map.of(new TopicPartition(job, shard), (long) item + 1));
                        if (r.allCommitted()) {
                            next.put(shard, item + 1);
                        } else {
                            next.remove(shard); // fenced: not ours any more (the member reports it lost)
                        }
                        didSomething = true;
                    }
                }
                if (!didSomething) {
                    try {
                        Thread.sleep(10); // idle: nothing owned or everything owned is finished
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        private void processItem(int shard, int item) {
            try {
                Thread.sleep(itemMillis); // the "work"
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            processed.incrementAndGet(shard * items + item);
            done.incrementAndGet();
        }

        void leave() throws InterruptedException {
            if (left) {
                return;
            }
            left = true;
            running.set(false);
            thread.join(30_000);
            member.close();
            keeper.close();
        }
    }
}
