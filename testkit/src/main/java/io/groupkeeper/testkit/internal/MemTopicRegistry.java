package io.groupkeeper.testkit.internal;

import io.groupkeeper.Names;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.TopicRegistry;
import io.groupkeeper.testkit.internal.KeeperFailure.Code;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Topics under {@code /topics/<topic>}, as the ZooKeeper store's registry: a data watch per topic read. */
public final class MemTopicRegistry implements TopicRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(MemTopicRegistry.class);

    private final MemClient zk;

    public MemTopicRegistry(MemClient zk) {
        this.zk = zk;
    }

    @Override
    public Map<String, Integer> partitionCounts(Collection<String> topics, Runnable onChange) {
        SortedMap<String, Integer> counts = new TreeMap<>();
        Runnable once = onChange == null ? null : once(onChange);
        for (String topic : topics) {
            String path = Paths.topic(topic);
            Optional<Ensemble.Read> read = zk.read(path, once);
            if (read.isPresent()) {
                try {
                    counts.put(topic, Bodies.decode(zk.abs(path), read.get().data(), Bodies.Topic.class).partitions());
                } catch (CorruptNodeException e) {
                    LOG.error("topic registry: ignoring {}", e.getMessage());
                }
            }
        }
        return counts;
    }

    private static Runnable once(Runnable hook) {
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                hook.run();
            }
        };
    }

    @Override
    public void ensureTopic(String topic, int partitions) {
        Names.requireValid("topic", topic);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions of topic " + topic + " must be >= 1, was " + partitions);
        }
        String path = Paths.topic(topic);
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<Ensemble.Read> read = zk.read(path, null);
            try {
                if (read.isEmpty()) {
                    zk.ensurePath(Paths.TOPICS, null);
                    zk.write(Op.Create.persistent(path, new Bodies.Topic(partitions)));
                    return;
                }
                int current = Bodies.decode(zk.abs(path), read.get().data(), Bodies.Topic.class).partitions();
                if (current == partitions) {
                    return;
                }
                if (partitions < current) {
                    throw new IllegalArgumentException("topic " + topic + " has " + current
                            + " partitions; lowering the count to " + partitions + " is refused");
                }
                zk.write(new Op.SetData(path, new Bodies.Topic(partitions), read.get().stat().version()));
                return;
            } catch (KeeperFailure e) {
                if (e.code() != Code.NODEEXISTS && e.code() != Code.BADVERSION) {
                    throw MemClient.failure("register topic " + zk.abs(path), e);
                }
                // raced with another writer: read again
            }
        }
        throw new StoreException("topic " + topic + " keeps changing; try again");
    }

    @Override
    public Optional<Integer> partitionCount(String topic) {
        String path = Paths.topic(topic);
        return zk.read(path, null).map(r -> Bodies.decode(zk.abs(path), r.data(), Bodies.Topic.class).partitions());
    }

    @Override
    public Map<String, Integer> list() {
        SortedMap<String, Integer> all = new TreeMap<>();
        for (String topic : zk.children(Paths.TOPICS, null)) {
            partitionCount(topic).ifPresent(n -> all.put(topic, n));
        }
        return all;
    }

    @Override
    public void delete(String topic) {
        try {
            zk.write(new Op.Delete(Paths.topic(topic), -1));
        } catch (KeeperFailure e) {
            if (e.code() != Code.NONODE) {
                throw MemClient.failure("delete topic " + topic, e);
            }
        }
    }
}
