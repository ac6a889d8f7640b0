package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Packs requests, each a few operations that must land together, into ZooKeeper transactions of bounded size: the
 * one size rule of every multi-op the store and the admin send (commits, releases, the leader's publish, admin plans).
 *
 * <p>The rule: an operation costs what it costs on the wire, its request record as ZooKeeper serializes it plus the
 * header that precedes it in a multi ({@link ZkPort#sizeOf}, which knows the session's ACLs); a transaction may cost up to {@link #MAX_TRANSACTION_BYTES}, below the default
 * {@code jute.maxbuffer} of 1 MiB with room for the envelope and for the server's own larger transaction record. A
 * request larger than the limit on its own still goes out, alone: ZooKeeper then refuses it, as it would any way.
 *
 * <p>The batcher only plans. The caller sends each batch the way its writes must go (fenced writes only through their
 * session's handle, {@link ZkPort#multiInSession}) and maps a failed operation back with {@link Batch#requestOf}.
 */
public final class TransactionBatcher {

    /** The most one transaction may cost; the default of the admin's limit too. */
    public static final int MAX_TRANSACTION_BYTES = (int) ZkPort.DEFAULT_TRANSACTION_LIMIT;
    /** A multi's header before each operation: type (int), done (boolean), error (int). */
    public static final int MULTI_HEADER_BYTES = 4 + 1 + 4;

    /** The operations of one request, in order. */
    @FunctionalInterface
    public interface OpsOf<R> {
        List<ZkOp> ops(R request) throws Exception;
    }

    private final long limit;
    private final ToLongFunction<ZkOp> sizer;

    /** A batcher of the default limit that sizes operations with {@code sizer} ({@link ZkPort#sizeOf}). */
    public TransactionBatcher(ToLongFunction<ZkOp> sizer) {
        this(MAX_TRANSACTION_BYTES, sizer);
    }

    public TransactionBatcher(long limit, ToLongFunction<ZkOp> sizer) {
        this.sizer = sizer;
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, was " + limit);
        }
        this.limit = limit;
    }

    /**
     * The first batch of {@code pending}: requests taken from the front while they fit, at least one. {@code
     * reservedBytes} is kept free for operations the caller adds to every transaction.
     */
    public <R> Batch<R> next(List<R> pending, long reservedBytes, OpsOf<R> opsOf) throws Exception {
        Batch<R> batch = new Batch<>();
        for (R r : pending) {
            List<ZkOp> ops = opsOf.ops(r);
            long cost = bytes(ops);
            if (!batch.requests.isEmpty() && reservedBytes + batch.bytes + cost > limit) {
                break;
            }
            batch.add(r, ops, cost);
        }
        return batch;
    }

    /** All of {@code requests} in batches, in order; one empty batch when there are none (the caller's own ops go alone). */
    public <R> List<Batch<R>> split(List<R> requests, long reservedBytes, OpsOf<R> opsOf) throws Exception {
        List<Batch<R>> batches = new ArrayList<>();
        List<R> rest = requests;
        do {
            Batch<R> b = next(rest, reservedBytes, opsOf);
            batches.add(b);
            rest = rest.subList(b.requests.size(), rest.size());
        } while (!rest.isEmpty());
        return batches;
    }

    /** Whether a transaction of {@code bytes} fits this batcher's limit. */
    public boolean fits(long bytes) {
        return bytes <= limit;
    }

    public long limit() {
        return limit;
    }

    /** What {@code ops} cost in one transaction, by the rule above. */
    public long bytes(Collection<ZkOp> ops) {
        long sum = 0;
        for (ZkOp op : ops) {
            sum += sizer.applyAsLong(op);
        }
        return sum;
    }

    /** Requests and their operations, side by side: which request each operation belongs to. */
    public static final class Batch<R> {
        private final List<R> requests = new ArrayList<>();
        private final List<ZkOp> ops = new ArrayList<>();
        /** Per request, the index of its last operation. */
        private final List<Integer> lastOps = new ArrayList<>();

        private long bytes;

        void add(R request, List<ZkOp> requestOps, long cost) {
            if (requestOps.isEmpty()) {
                throw new IllegalArgumentException("request " + request + " has no operations");
            }
            requests.add(request);
            ops.addAll(requestOps);
            lastOps.add(ops.size() - 1);
            bytes += cost;
        }

        public List<R> requests() {
            return List.copyOf(requests);
        }

        public List<ZkOp> ops() {
            return List.copyOf(ops);
        }

        public boolean isEmpty() {
            return requests.isEmpty();
        }

        /** What the batch's operations cost. */
        public long bytes() {
            return bytes;
        }

        /** The index in {@link #ops()} of the last operation of the {@code i}-th request. */
        public int lastOp(int i) {
            return lastOps.get(i);
        }

        /** The request whose operations include operation {@code op} (an index in {@link #ops()}). */
        public R requestOf(int op) {
            if (op < 0) {
                throw new IllegalArgumentException("operation " + op + " is before the batch's first");
            }
            for (int i = 0; i < lastOps.size(); i++) {
                if (op <= lastOps.get(i)) {
                    return requests.get(i);
                }
            }
            throw new IllegalArgumentException("operation " + op + " is past the batch's last, " + lastOps);
        }
    }
}
