package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.Names;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Topics registered under {@code /topics/<topic>} as {@code {"partitions": N}}. */
public final class ZkTopicRegistry implements TopicRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(ZkTopicRegistry.class);

    private final ZkPort zk;
    /** Topics asked for and found unregistered, each said once (again after it was registered and removed). */
    private final Set<String> warnedMissing = ConcurrentHashMap.newKeySet();

    public ZkTopicRegistry(ZkPort zk) {
        this.zk = zk;
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics, Runnable onChange) {
        SortedMap<String, Integer> counts = new TreeMap<>();
        Runnable once = onChange == null ? null : new OnceRunnable(onChange);
        for (String topic : topics) {
            String path = ZkPaths.topic(topic);
            Optional<ZkNode> read = zk.read(path, once);
            if (read.isPresent()) {
                try {
                    counts.put(topic, NodeCodec.topic(zk.abs(path), read.get().data()));
                    if (warnedMissing.remove(topic)) {
                        LOG.info("topic {} is registered now, with {} partitions", topic, counts.get(topic));
                    }
                } catch (CorruptNodeException e) {
                    LOG.error("topic registry: ignoring {}", e.getMessage());
                }
            } else if (warnedMissing.add(topic)) {
                LOG.warn(
                        "topic {} is not registered ({} does not exist): no partitions of it are assigned until it "
                                + "is (TopicRegistry.ensureTopic(\"{}\", partitions)); the group's other topics are unaffected",
                        topic,
                        zk.abs(path),
                        topic);
            }
        }
        return counts;
    }

    @Override
    public void ensureTopic(String topic, int partitions) {
        Names.requireValid("topic", topic);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions of topic " + topic + " must be >= 1, was " + partitions);
        }
        String path = ZkPaths.topic(topic);
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<ZkNode> read = zk.read(path, null);
            try {
                if (read.isEmpty()) {
                    zk.createWithParents(path, NodeCodec.topic(partitions));
                    return;
                }
                int current = NodeCodec.topic(zk.abs(path), read.get().data());
                if (current == partitions) {
                    return;
                }
                if (partitions < current) {
                    throw new IllegalArgumentException("topic " + topic + " has " + current
                            + " partitions; lowering the count to " + partitions + " is refused");
                }
                zk.write(ZkOp.set(
                        path, NodeCodec.topic(partitions), read.get().stat().version()));
                return;
            } catch (ZkFailure e) {
                if (e.code() != ZkCode.NODEEXISTS && e.code() != ZkCode.BADVERSION) {
                    throw ZkFailure.toStore("register topic " + path, e);
                }
                // raced with another writer: read again
            }
        }
        throw new StoreException("topic " + topic + " keeps changing; try again");
    }

    @Override
    public Optional<Integer> partitionCount(String topic) {
        String path = ZkPaths.topic(topic);
        return zk.read(path, null).map(r -> NodeCodec.topic(zk.abs(path), r.data()));
    }

    @Override
    public Map<String, Integer> list() {
        SortedMap<String, Integer> all = new TreeMap<>();
        for (String topic : zk.children(ZkPaths.TOPICS, null)) {
            partitionCount(topic).ifPresent(n -> all.put(topic, n));
        }
        return all;
    }

    @Override
    public void delete(String topic) {
        try {
            zk.write(ZkOp.delete(ZkPaths.topic(topic), -1));
        } catch (ZkFailure e) {
            if (e.code() != ZkCode.NONODE) {
                throw ZkFailure.toStore("delete topic " + topic, e);
            }
            // already gone
        }
    }

    /** Runs the wrapped hook at most once, however many watches share it. */
    static final class OnceRunnable implements Runnable {
        private final Runnable hook;
        private final AtomicBoolean done = new AtomicBoolean();

        OnceRunnable(Runnable hook) {
            this.hook = hook;
        }

        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                hook.run();
            }
        }
    }
}
