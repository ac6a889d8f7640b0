package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.spi.StoreException;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zookeeper.internal.ZkSession;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Reads many nodes in few round trips with ZooKeeper's read-only {@code multi} (3.6+): a batch of getData/getChildren
 * operations answered together, each with its own result (a missing node is a per-operation error, not a failure of
 * the batch). Batches are bounded so a response stays far below {@code jute.maxbuffer}. Falls back to one read per
 * node on servers without read multis. Paths are relative to the client's namespace, as everywhere in the store.
 */
final class ZkReader {

    /** Up to this many operations per read multi (at ~200 bytes per offset node, ~100 KiB per response). */
    static final int BATCH = 500;
    private static final int ATTEMPTS = 3;

    private final CuratorFramework client;
    private final ZkSession zk;
    private volatile boolean multiReadUnsupported;

    ZkReader(CuratorFramework client, ZkSession zk) {
        this.client = client;
        this.zk = zk;
    }

    String abs(String path) {
        return zk.abs(path);
    }

    /** The data of each path; absent paths map to empty. Iteration order follows {@code paths}. */
    Map<String, Optional<ZkNode>> data(Collection<String> paths) {
        Map<String, Optional<ZkNode>> out = new LinkedHashMap<>();
        List<String> list = List.copyOf(new java.util.LinkedHashSet<>(paths));
        for (int from = 0; from < list.size(); from += BATCH) {
            List<String> chunk = list.subList(from, Math.min(list.size(), from + BATCH));
            List<OpResult> results = multi(chunk, true);
            for (int i = 0; i < chunk.size(); i++) {
                OpResult r = results.get(i);
                if (r instanceof OpResult.GetDataResult d) {
                    out.put(chunk.get(i), Optional.of(new ZkNode(d.getData(), ZkSession.stat(d.getStat()))));
                } else {
                    check(chunk.get(i), r);
                    out.put(chunk.get(i), Optional.empty());
                }
            }
        }
        return out;
    }

    /** The children of each path (sorted); absent paths map to empty. */
    Map<String, Optional<List<String>>> children(Collection<String> paths) {
        Map<String, Optional<List<String>>> out = new LinkedHashMap<>();
        List<String> list = List.copyOf(new java.util.LinkedHashSet<>(paths));
        for (int from = 0; from < list.size(); from += BATCH) {
            List<String> chunk = list.subList(from, Math.min(list.size(), from + BATCH));
            List<OpResult> results = multi(chunk, false);
            for (int i = 0; i < chunk.size(); i++) {
                OpResult r = results.get(i);
                if (r instanceof OpResult.GetChildrenResult c) {
                    List<String> sorted = new ArrayList<>(c.getChildren());
                    java.util.Collections.sort(sorted);
                    out.put(chunk.get(i), Optional.of(sorted));
                } else {
                    check(chunk.get(i), r);
                    out.put(chunk.get(i), Optional.empty());
                }
            }
        }
        return out;
    }

    Optional<ZkNode> data(String path) {
        return data(List.of(path)).get(path);
    }

    List<String> children(String path) {
        return children(List.of(path)).get(path).orElse(List.of());
    }

    private void check(String path, OpResult r) {
        if (r instanceof OpResult.ErrorResult e) {
            KeeperException.Code code = KeeperException.Code.get(e.getErr());
            if (code == KeeperException.Code.NONODE) {
                return;
            }
            if (code == KeeperException.Code.NOAUTH) {
                throw new AdminException("read of " + abs(path) + " refused by ZooKeeper", AdminException.Remedy.CREDENTIALS,
                        null, null);
            }
            throw new StoreException("ZooKeeper: read " + abs(path) + " failed: " + code);
        }
        throw new StoreException("ZooKeeper: read " + abs(path) + ": unexpected result " + r);
    }

    private List<OpResult> multi(List<String> paths, boolean data) {
        if (!multiReadUnsupported) {
            List<Op> ops = new ArrayList<>(paths.size());
            for (String p : paths) {
                ops.add(data ? Op.getData(abs(p)) : Op.getChildren(abs(p)));
            }
            for (int attempt = 1; ; attempt++) {
                try {
                    ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
                    return handle.multi(ops);
                } catch (KeeperException.UnimplementedException e) {
                    multiReadUnsupported = true; // a server older than 3.6
                    break;
                } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException e) {
                    if (attempt >= ATTEMPTS) {
                        throw ZkSession.failure("read of " + paths.size() + " nodes", e);
                    }
                    awaitConnection();
                } catch (Exception e) {
                    throw ZkSession.failure("read of " + paths.size() + " nodes", e);
                }
            }
        }
        List<OpResult> results = new ArrayList<>(paths.size());
        for (String p : paths) {
            try {
                if (data) {
                    Stat stat = new Stat();
                    byte[] bytes = client.getData().storingStatIn(stat).forPath(p);
                    results.add(new OpResult.GetDataResult(bytes, stat));
                } else {
                    results.add(new OpResult.GetChildrenResult(client.getChildren().forPath(p)));
                }
            } catch (KeeperException.NoNodeException e) {
                results.add(new OpResult.ErrorResult(KeeperException.Code.NONODE.intValue()));
            } catch (Exception e) {
                throw ZkSession.failure("read " + abs(p), e);
            }
        }
        return results;
    }

    private void awaitConnection() {
        try {
            client.getZookeeperClient().blockUntilConnectedOrTimedOut();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for ZooKeeper", e);
        }
    }
}
