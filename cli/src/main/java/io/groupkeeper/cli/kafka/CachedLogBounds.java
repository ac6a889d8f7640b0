package io.groupkeeper.cli.kafka;

import com.github.benmanes.caffeine.cache.AsyncCacheLoader;
import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.admin.AdminException;
import io.groupkeeper.zkprotocol.admin.LogBounds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@link LogBounds} for a long-running monitor of many partitions: log-end offsets and record timestamps from Kafka
 * (through a {@link KafkaLogBounds}) kept in Caffeine {@link AsyncLoadingCache}s, so the broker is asked once per
 * refresh interval, in batches, however often the monitor reads.
 *
 * <ul>
 *   <li><b>Log ends</b>, per partition: {@code refreshAfterWrite(refresh)}. A read after the interval returns the
 *   cached value at once and refreshes it in the background; refreshes that fall due together are coalesced into one
 *   {@code listOffsets} call, as are first loads ({@code getAll}). When a refresh fails (Kafka unreachable) the old
 *   value stays: the monitor keeps serving the last values. A monitor calls {@link #beginSample} before each sample:
 *   then each log end is loaded fresh once per sample (see there). A partition Kafka cannot answer for is left out
 *   of its batch, not the batch failed.</li>
 *   <li><b>Record timestamps</b>, per (partition, offset): the record at an offset never changes, so a known
 *   timestamp is kept (its refresh returns it without I/O) until unused for {@code expireAfterAccess}. "No data
 *   record at or after the offset" depends on the log end it was checked against, and is looked up again when the
 *   log end has moved past it.</li>
 * </ul>
 * Time comes from the {@link Ticker} (tests pass a fake one). Partition counts, log starts and offsets for a time are
 * not cached (resets ask for them rarely). Thread-safe. {@link #close} closes the {@link KafkaLogBounds}.
 */
public final class CachedLogBounds implements LogBounds, AutoCloseable {

    /** A timestamp answer and the log end it was checked against. */
    private record Answer(Optional<Instant> at, long checkedUpTo) {}

    private record OffsetAt(TopicPartition partition, long offset) {}

    private final KafkaLogBounds kafka;
    private final Duration timeout;
    private final ExecutorService pool;
    private final AsyncLoadingCache<TopicPartition, Long> logEnds;
    private final AsyncLoadingCache<OffsetAt, Answer> timestamps;
    private final Coalescer<TopicPartition, Long> endRefreshes;
    private final AtomicLong logEndRequests = new AtomicLong();
    private final AtomicLong timestampRequests = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<RuntimeException> lastFailure = new AtomicReference<>();
    /** Partitions whose log end was loaded in the current sample ({@link #beginSample}); none until one begins. */
    private final Set<TopicPartition> freshInSample = ConcurrentHashMap.newKeySet();

    private volatile boolean sampling;
    /** Log ends wanted by the timestamp look-up running now (its loader needs them). */
    private final ThreadLocal<Map<TopicPartition, Long>> endsForLookup = new ThreadLocal<>();

    public CachedLogBounds(KafkaLogBounds kafka, Duration refresh, Duration timeout, Ticker ticker) {
        this.kafka = kafka;
        this.timeout = timeout;
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "groupkeeper-log-bounds");
            t.setDaemon(true);
            return t;
        });
        this.endRefreshes = new Coalescer<>(pool, this::loadLogEnds);
        this.logEnds = Caffeine.newBuilder()
                .ticker(ticker)
                .executor(pool)
                .refreshAfterWrite(refresh)
                .expireAfterAccess(Duration.ofMinutes(10))
                .buildAsync(new AsyncCacheLoader<TopicPartition, Long>() {
                    @Override
                    public CompletableFuture<? extends Long> asyncLoad(TopicPartition key, Executor executor) {
                        return endRefreshes.load(key);
                    }

                    @Override
                    public CompletableFuture<? extends Map<? extends TopicPartition, ? extends Long>> asyncLoadAll(
                            Set<? extends TopicPartition> keys, Executor executor) {
                        return CompletableFuture.supplyAsync(
                                () -> quietly(() -> loadLogEnds(List.copyOf(keys))), executor);
                    }

                    @Override
                    public CompletableFuture<? extends Long> asyncReload(
                            TopicPartition key, Long oldValue, Executor executor) {
                        // A failed refresh keeps the old value (Kafka down: the last values are served).
                        return endRefreshes.load(key).exceptionally(failure -> oldValue);
                    }
                });
        this.timestamps = Caffeine.newBuilder()
                .ticker(ticker)
                .executor(pool)
                .maximumSize(200_000)
                .refreshAfterWrite(refresh)
                .expireAfterAccess(Duration.ofMinutes(10))
                .buildAsync(new AsyncCacheLoader<OffsetAt, Answer>() {
                    @Override
                    public CompletableFuture<? extends Answer> asyncLoad(OffsetAt key, Executor executor) {
                        return asyncLoadAll(Set.of(key), executor).thenApply(m -> m.get(key));
                    }

                    @Override
                    public CompletableFuture<? extends Map<? extends OffsetAt, ? extends Answer>> asyncLoadAll(
                            Set<? extends OffsetAt> keys, Executor executor) {
                        Map<TopicPartition, Long> ends = endsForLookup.get(); // read on the caller's thread
                        return CompletableFuture.supplyAsync(() -> quietly(() -> loadTimestamps(keys, ends)), executor);
                    }

                    @Override
                    public CompletableFuture<? extends Answer> asyncReload(
                            OffsetAt key, Answer old, Executor executor) {
                        return CompletableFuture.completedFuture(old); // re-checked in recordTimestamps when stale
                    }
                });
    }

    /** With the system ticker. */
    public CachedLogBounds(KafkaLogBounds kafka, Duration refresh, Duration timeout) {
        this(kafka, refresh, timeout, Ticker.systemTicker());
    }

    public KafkaLogBounds kafka() {
        return kafka;
    }

    /** {@code listOffsets} calls made for log ends so far (each for any number of partitions). */
    public long logEndRequests() {
        return logEndRequests.get();
    }

    /** Timestamp look-ups sent to Kafka so far (each for any number of partitions). */
    public long timestampRequests() {
        return timestampRequests.get();
    }

    /**
     * Runs a bulk load; a failure is recorded and answered with no entries instead of a failed future (which Caffeine
     * would log with a stack trace on every attempt). The reader that asked rethrows it ({@link #failedSince}).
     */
    private <K, V> Map<K, V> quietly(Supplier<Map<K, V>> load) {
        try {
            return load.get();
        } catch (RuntimeException e) {
            lastFailure.set(e);
            failures.incrementAndGet();
            return Map.of();
        }
    }

    /** Throws the last load failure if one happened since {@code before} and the answer lacks what was asked. */
    private void failedSince(long before, boolean incomplete) {
        RuntimeException e = lastFailure.get();
        if (incomplete && failures.get() != before && e != null) {
            if (e instanceof AdminException ae) {
                throw ae;
            }
            throw new AdminException(describe() + ": " + KafkaLogBounds.oneLine(e), e);
        }
    }

    private Map<TopicPartition, Long> loadLogEnds(Collection<TopicPartition> keys) {
        logEndRequests.incrementAndGet();
        return kafka.latestAvailable(keys);
    }

    /**
     * Starts a monitor's sample: from now on each partition's log end is loaded once per sample, on the first read
     * that asks for it, and served from the cache to the sample's later reads. Without it a read after the refresh
     * interval gets the cached value and refreshes behind, so a sampler that reads once per interval would compute
     * every lag from the previous sample's log ends against fresh committed offsets: a consumer less than one
     * interval behind would read as caught up, with negative lag. A load that fails keeps the cached values.
     */
    public void beginSample() {
        sampling = true;
        freshInSample.clear();
    }

    /** Loads, in one request, the log ends of {@code partitions} not yet loaded in this sample. */
    private void loadForSample(Collection<TopicPartition> partitions) {
        List<TopicPartition> due = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (!freshInSample.contains(tp)) {
                due.add(tp);
            }
        }
        if (due.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> fresh = quietly(() -> loadLogEnds(due));
        logEnds.synchronous().putAll(fresh);
        freshInSample.addAll(fresh.keySet());
    }

    private Map<OffsetAt, Answer> loadTimestamps(Set<? extends OffsetAt> keys, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        Map<TopicPartition, Long> knownEnds = new HashMap<>();
        for (OffsetAt k : keys) {
            offsets.put(k.partition(), k.offset());
            Long end = ends == null ? null : ends.get(k.partition());
            if (end != null) {
                knownEnds.put(k.partition(), end);
            }
        }
        timestampRequests.incrementAndGet();
        Map<TopicPartition, Optional<Instant>> found = kafka.recordTimestamps(offsets, knownEnds);
        Map<OffsetAt, Answer> out = new HashMap<>();
        for (OffsetAt k : keys) {
            Optional<Instant> at = found.get(k.partition());
            if (at != null) {
                out.put(k, new Answer(at, knownEnds.get(k.partition())));
            }
        }
        return out;
    }

    @Override
    public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        long before = failures.get();
        if (sampling) {
            loadForSample(partitions);
        }
        CompletableFuture<Map<TopicPartition, Long>> ends = logEnds.getAll(partitions);
        endRefreshes.flushAsync(); // the refreshes this read triggered, as one listOffsets
        Map<TopicPartition, Long> out = await(ends, "log-end offsets");
        failedSince(before, !out.keySet().containsAll(partitions));
        return out;
    }

    @Override
    public Map<TopicPartition, Optional<Instant>> recordTimestamps(Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, Long> ends = latest(offsets.keySet());
        List<OffsetAt> keys = new ArrayList<>();
        offsets.forEach((tp, o) -> keys.add(new OffsetAt(tp, o)));
        endsForLookup.set(ends);
        try {
            long before = failures.get();
            Map<OffsetAt, Answer> answers = await(timestamps.getAll(keys), "record timestamps");
            failedSince(before, answers.size() < keys.size());
            List<OffsetAt> stale = new ArrayList<>();
            answers.forEach((k, a) -> {
                Long end = ends.get(k.partition());
                if (a.at().isEmpty() && end != null && end > a.checkedUpTo()) {
                    stale.add(k); // "nothing after it" was true up to an older log end
                }
            });
            if (!stale.isEmpty()) {
                timestamps.synchronous().invalidateAll(stale);
                Map<OffsetAt, Answer> fresh = await(timestamps.getAll(stale), "record timestamps");
                answers = new HashMap<>(answers);
                answers.putAll(fresh);
            }
            Map<TopicPartition, Optional<Instant>> out = new HashMap<>();
            answers.forEach((k, a) -> out.put(k.partition(), a.at()));
            return out;
        } finally {
            endsForLookup.remove();
        }
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics) {
        return kafka.partitionCounts(topics);
    }

    @Override
    public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
        return kafka.earliest(partitions);
    }

    @Override
    public Map<TopicPartition, Long> offsetsForTimestamp(Collection<TopicPartition> partitions, Instant timestamp) {
        return kafka.offsetsForTimestamp(partitions, timestamp);
    }

    @Override
    public String describe() {
        return kafka.describe();
    }

    private <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis() * 2 + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause =
                    e.getCause() instanceof CompletionException && e.getCause().getCause() != null
                            ? e.getCause().getCause()
                            : e.getCause();
            if (cause instanceof AdminException ae) {
                throw ae;
            }
            throw new AdminException(describe() + ": " + what + " failed: " + KafkaLogBounds.oneLine(cause), cause);
        } catch (TimeoutException e) {
            throw new AdminException(describe() + ": " + what + " timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted while asking " + describe());
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
        kafka.close();
    }

    /**
     * Coalesces single-key loads (Caffeine refreshes entries one by one, on the reading thread) into one batch: they
     * wait until the read that triggered them ends and {@link #flushAsync} sends them together.
     */
    private static final class Coalescer<K, V> {
        private final Executor executor;
        private final Function<Collection<K>, Map<K, V>> bulk;
        private Map<K, CompletableFuture<V>> pending = new HashMap<>();

        Coalescer(Executor executor, Function<Collection<K>, Map<K, V>> bulk) {
            this.executor = executor;
            this.bulk = bulk;
        }

        synchronized CompletableFuture<V> load(K key) {
            return pending.computeIfAbsent(key, k -> new CompletableFuture<>());
        }

        /** Sends what is pending, in one batch, on the executor. */
        void flushAsync() {
            synchronized (this) {
                if (pending.isEmpty()) {
                    return;
                }
            }
            executor.execute(this::flush);
        }

        private void flush() {
            Map<K, CompletableFuture<V>> batch;
            synchronized (this) {
                batch = pending;
                pending = new HashMap<>();
            }
            if (batch.isEmpty()) {
                return;
            }
            try {
                Map<K, V> values = bulk.apply(batch.keySet());
                batch.forEach((k, f) -> f.complete(values.get(k))); // null: unknown now (removed from the cache)
            } catch (RuntimeException e) {
                batch.values().forEach(f -> f.completeExceptionally(e));
            }
        }
    }
}
