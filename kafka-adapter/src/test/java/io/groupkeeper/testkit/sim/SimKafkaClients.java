package io.groupkeeper.testkit.sim;

import io.groupkeeper.kafka.internal.KafkaAdmin;
import io.groupkeeper.kafka.internal.KafkaClients;
import io.groupkeeper.kafka.sim.KafkaModel;
import io.groupkeeper.kafka.sim.ModelAdmin;
import io.groupkeeper.kafka.sim.ModelConsumer;
import io.groupkeeper.kafka.sim.ModelProducer;
import io.groupkeeper.testkit.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The adapter's {@link KafkaClients} in a simulated world: the {@link KafkaModel}'s clients, the simulated clock, and
 * waits that park the calling simulated thread ({@link SimThreads}: its process is carried) while the scheduler runs
 * the rest of the world, ended by what they wait for or by a timer task of the waiting thread's own tag (a frozen
 * thread's timer waits with it). The claims' pool runs each task in the caller (the model's requests take simulated
 * time there instead), the metadata timer is a simulated thread of the member's process.
 *
 * <p>Checks one rule of the transactional claim: no transactional producer is created (its {@code initTransactions()}
 * follows at once) while the member's store is not connected — a member in doubt cannot know whether it still owns the
 * partition, and the epoch it bumps fences the owner (docs/exactly-once.md, claim step 2).
 */
final class SimKafkaClients implements KafkaClients {

    private final KafkaModel kafka;
    private final SimScheduler scheduler;
    private final ManualClock clock;
    private final String timerTag;
    private final java.util.function.BooleanSupplier storeConnected;
    private final java.util.function.Consumer<String> violations;
    /**
     * The container's threads (workers, handler pools) become simulated threads of the process through this: it
     * registers a thread's name as a tag of the process and returns the tag; null: no threads of its own (the member
     * simulation's consumers).
     */
    private java.util.function.Function<String, String> threads;

    /** For a member: {@code storeConnected} is its store's; a transactional claim while it is false is reported. */
    SimKafkaClients(
            KafkaModel kafka,
            SimScheduler scheduler,
            ManualClock clock,
            String timerTag,
            java.util.function.BooleanSupplier storeConnected,
            java.util.function.Consumer<String> violations) {
        this.kafka = kafka;
        this.scheduler = scheduler;
        this.clock = clock;
        this.timerTag = timerTag;
        this.storeConnected = storeConnected;
        this.violations = violations;
    }

    @Override
    public <K, V> Consumer<K, V> consumer(
            Map<String, Object> properties, Deserializer<K> keys, Deserializer<V> values) {
        Object max = properties.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
        return new ModelConsumer<>(kafka, max == null ? 500 : Integer.parseInt(max.toString()), keys, values);
    }

    @Override
    public Producer<Object, Object> producer(
            Map<String, Object> properties, Serializer<Object> keys, Serializer<Object> values) {
        String id = (String) properties.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        if (id != null && !storeConnected.getAsBoolean()) {
            violations.accept(clock.millis() + " " + timerTag + ": a transactional claim (initTransactions() of " + id
                    + ") while the member's store is not connected: it cannot know it owns the partition, and the "
                    + "epoch it bumps fences the owner");
        }
        Producer<Object, Object> producer = new ModelProducer(kafka, id);
        return threads == null ? producer : deadProcessRefused(producer);
    }

    /**
     * The container's producers refuse the calls of a simulated thread whose process died: a crashed process's threads
     * unwind (finally blocks, the worker's failure path closing its consumer), and a real one killed runs none of
     * that, so nothing it sends or commits then may land (a transaction committed by the unwinding set Kafka's offset
     * of record back to the dead member's stale position: TRANSACTIONAL seed 78, t-1 74 -> 56).
     */
    @SuppressWarnings("unchecked")
    private Producer<Object, Object> deadProcessRefused(Producer<Object, Object> producer) {
        return (Producer<Object, Object>) java.lang.reflect.Proxy.newProxyInstance(
                Producer.class.getClassLoader(), new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                    if (!scheduler.threads().canWait()
                            && Thread.currentThread().getName().startsWith("sim-carrier-")) {
                        throw new org.apache.kafka.common.KafkaException(
                                "model: " + method.getName() + "() from a simulated thread whose process died");
                    }
                    try {
                        return method.invoke(producer, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public KafkaAdmin admin(Map<String, Object> properties) {
        return new ModelAdmin(kafka);
    }

    @Override
    public ExecutorService pool(String name, int threads) {
        return new Direct();
    }

    @Override
    public ScheduledExecutorService timer(String name) {
        return new SimTimer(scheduler.executor(timerTag));
    }

    /** The container's threads are simulated threads of a process: {@code tagOf} registers one, returns its tag. */
    SimKafkaClients threads(java.util.function.Function<String, String> tagOf) {
        this.threads = tagOf;
        return this;
    }

    /** A container's worker: its loop runs as a task of a simulated thread of the process, named as the thread. */
    @Override
    public void start(Thread thread) {
        if (threads == null) {
            throw new IllegalStateException(
                    "a thread of its own (" + thread.getName() + ") in a simulation without them");
        }
        scheduler.executor(threads.apply(thread.getName())).execute(thread::run);
    }

    /** A worker's handler pool: {@code n} simulated threads of the process, made by {@code factory}, one queue. */
    @Override
    public ExecutorService pool(int n, java.util.concurrent.ThreadFactory factory) {
        SimPool pool = new SimPool();
        for (int i = 0; i < n; i++) {
            start(factory.newThread(pool::work));
        }
        return pool;
    }

    /** Takes the queue's head, waiting in simulated time (looking again each {@link #QUEUE_LOOK_MILLIS}). */
    @Override
    public <T> T poll(java.util.concurrent.BlockingQueue<T> queue, long nanos) {
        long end = clock.millis() + Math.max(0, (nanos + 999_999) / 1_000_000);
        while (true) {
            T head = queue.poll();
            long left = end - clock.millis();
            if (head != null || left <= 0) {
                return head;
            }
            sleepUntil(new CompletableFuture<>(), Math.min(left, QUEUE_LOOK_MILLIS));
        }
    }

    /** How often a wait on a container's outcome queue looks again (simulated ms). */
    static final long QUEUE_LOOK_MILLIS = 5;

    /** A fixed pool whose threads are simulated threads: each takes tasks from one queue, parked while it is empty. */
    private final class SimPool extends FlagExecutor {
        private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();
        private CompletableFuture<Void> more = new CompletableFuture<>();

        void work() {
            while (true) {
                Runnable r = tasks.poll();
                if (r != null) {
                    r.run();
                    continue;
                }
                if (shutdown) {
                    return;
                }
                scheduler.threads().await(more, false);
            }
        }

        @Override
        public void execute(Runnable command) {
            if (shutdown) {
                throw new java.util.concurrent.RejectedExecutionException("pool shut down");
            }
            tasks.add(command);
            CompletableFuture<Void> was = more;
            more = new CompletableFuture<>();
            was.complete(null);
        }

        @Override
        public void shutdown() {
            shutdown = true;
            more.complete(null);
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            List<Runnable> left = List.copyOf(tasks);
            tasks.clear();
            more.complete(null);
            return left;
        }

        @Override
        public boolean isTerminated() {
            return shutdown && tasks.isEmpty();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return isTerminated();
        }
    }

    @Override
    public long nanoTime() {
        return clock.millis() * 1_000_000L;
    }

    @Override
    public boolean await(CompletableFuture<?> f, long nanos) {
        if (!f.isDone()) {
            sleepUntil(f, nanos >= Long.MAX_VALUE / 4 ? -1 : Math.max(1, (nanos + 999_999) / 1_000_000));
        }
        return f.isDone();
    }

    /** Parks the calling simulated thread until {@code f} completes or {@code millis} pass (-1: no timer). */
    void sleepUntil(CompletableFuture<?> f, long millis) {
        sleepUntil(scheduler, f, millis);
    }

    /**
     * The {@link KafkaModel}'s time in a simulated world: the simulated clock; a wait of the model's parks the calling
     * simulated thread (when it can wait). {@code pollsWait}: a consumer's poll waits for records (the container's
     * world) or answers at once and a wait ignores what it waits for (the member simulation's, as its seeds were
     * pinned).
     */
    static KafkaModel.Time time(SimScheduler scheduler, ManualClock clock, boolean pollsWait) {
        return new KafkaModel.Time() {
            @Override
            public long millis() {
                return clock.millis();
            }

            @Override
            public void sleep(long millis) {
                sleep(millis, new CompletableFuture<>());
            }

            @Override
            public void sleep(long millis, CompletableFuture<?> until) {
                if (scheduler.threads().canWait()) {
                    sleepUntil(scheduler, pollsWait ? until : new CompletableFuture<>(), millis);
                }
            }

            /**
             * A poll of a simulated thread whose process died (its carrier abandoned: it can wait no more) ends its
             * thread as every wait of the adapter there does ({@link #sleepUntil}): answered at once, the listener
             * container's worker on the transactional and batch path would poll again for ever.
             */
            @Override
            public boolean waits() {
                if (!pollsWait) {
                    return false;
                }
                if (!scheduler.threads().canWait()
                        && Thread.currentThread().getName().startsWith("sim-carrier-")) {
                    throw new IllegalStateException("a poll of the adapter on a simulated thread whose process "
                            + "died (tag " + scheduler.running() + "): it ends");
                }
                return scheduler.threads().canWait();
            }
        };
    }

    private static void sleepUntil(SimScheduler scheduler, CompletableFuture<?> f, long millis) {
        SimThreads threads = scheduler.threads();
        if (!threads.canWait()) {
            throw new IllegalStateException("a wait of the adapter outside a simulated thread that can wait (tag "
                    + scheduler.running() + "): its process must be carried");
        }
        CompletableFuture<Void> timer = new CompletableFuture<>();
        ScheduledFuture<?> t = millis < 0
                ? null
                : scheduler
                        .executor(scheduler.running())
                        .schedule(() -> timer.complete(null), millis, TimeUnit.MILLISECONDS);
        threads.await(CompletableFuture.anyOf(f, timer), false);
        if (t != null) {
            t.cancel(false);
        }
    }

    /** Runs each task in the caller. */
    private static final class Direct extends FlagExecutor {
        @Override
        public void execute(Runnable command) {
            command.run();
        }
    }
}
