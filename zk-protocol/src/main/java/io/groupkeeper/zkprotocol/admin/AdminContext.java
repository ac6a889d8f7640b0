package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the admin's pieces share: the session port, the batched reader, the log bounds, the clock, the limits, and the
 * wording of the failures they have in common.
 */
final class AdminContext {

    final ZkPort zk;
    final ZkReader reader;
    final Optional<LogBounds> bounds;
    final Clock clock;
    final int maxAttempts;
    /**
     * The most one transaction may cost, by the store's one size rule ({@link AdminNodes#fitsOneTransaction}); a plan
     * is never split, only refused when too large.
     */
    final long transactionLimit;

    AdminContext(ZkPort zk, Optional<LogBounds> bounds, Clock clock, int maxTransactionBytes, int maxAttempts) {
        this.zk = zk;
        this.reader = new ZkReader(zk);
        this.bounds = bounds;
        this.clock = clock;
        this.maxAttempts = maxAttempts;
        this.transactionLimit = maxTransactionBytes;
    }

    GroupView requireGroup(String group) {
        GroupView v = GroupView.read(reader, group);
        if (!v.exists) {
            throw unknownGroup(group);
        }
        return v;
    }

    AdminException unknownGroup(String group) {
        return new AdminException("unknown group '" + group + "' (no node " + zk.abs(AdminLayout.group(group)) + ")");
    }

    /** What {@code ops} cost in one transaction, each sized as ZooKeeper serializes it ({@link ZkPort#sizeOf}). */
    long bytes(List<ZkOp> ops) {
        long sum = 0;
        for (ZkOp op : ops) {
            sum += zk.sizeOf(op);
        }
        return sum;
    }

    /** Refuses a transaction of {@code bytes} that does not fit; {@code remedy} (nullable) says what to do instead. */
    void requireFits(long bytes, String what, AdminException.Remedy remedy) {
        if (!AdminNodes.fitsOneTransaction(bytes, transactionLimit)) {
            String detail = what + " needs a transaction of about " + (bytes / 1024) + " KiB, more than the "
                    + (transactionLimit / 1024) + " KiB that fit one ZooKeeper transaction (jute.maxbuffer); "
                    + "it is not split, so it could not apply in part";
            throw remedy == null ? new AdminException(detail) : new AdminException(detail, remedy, null);
        }
    }

    /** A write that lost a race with another writer: the caller reads again and retries. */
    static boolean isConflict(ZkFailure e) {
        return switch (e.code()) {
            case BADVERSION, NODEEXISTS, NONODE, NOTEMPTY -> true;
            default -> false;
        };
    }

    AdminException writeFailure(String what, ZkFailure e) {
        if (e.code() == ZkCode.NOAUTH) {
            return new AdminException(what + " refused by ZooKeeper", AdminException.Remedy.CREDENTIALS, null, e);
        }
        return new AdminException(
                what + " failed: ZooKeeper " + e.code() + (e.path() != null ? " " + e.path() : "")
                        + "; nothing was written",
                e);
    }

    /**
     * Brings the server this session reads from up to date with the leader (ZooKeeper's {@code sync}), so the next
     * read of {@code path} sees every write committed before; false when it could not.
     */
    boolean syncQuietly(String path) {
        try {
            zk.sync(path);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** A short random pause before attempt {@code attempt + 1}, growing with the attempts (at most 100 ms). */
    void backoff(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, Math.min(100, 5L * attempt) + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException("interrupted; nothing was written");
        }
    }

    /** The committed offsets among {@code nodes}, of {@code topic} only unless it is null. */
    static SortedMap<TopicPartition, Long> committed(Map<TopicPartition, GroupView.OffsetNode> nodes, String topic) {
        SortedMap<TopicPartition, Long> out = new TreeMap<>();
        nodes.forEach((tp, n) -> {
            if (topic == null || tp.topic().equals(topic)) {
                n.body()
                        .flatMap(b ->
                                b.offset().isPresent() ? Optional.of(b.offset().getAsLong()) : Optional.empty())
                        .ifPresent(o -> out.put(tp, o));
            }
        });
        return out;
    }

    static String topicsOf(Collection<TopicPartition> partitions) {
        return String.join(
                ", ",
                partitions.stream()
                        .map(TopicPartition::topic)
                        .distinct()
                        .sorted()
                        .toList());
    }

    /** A node's body as an operator would recognise it, shortened to one line. */
    static String abbreviate(byte[] data) {
        String s = new String(data, StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        return "'" + (s.length() <= 60 ? s : s.substring(0, 57) + "...") + "'";
    }
}
