package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.internal.MembersSnapshot;
import io.groupkeeper.zkprotocol.ZkPort;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the member view, as Curator's {@code CuratorCacheBridge} chooses between {@code CuratorCache} and the older
 * tree cache: a persistent recursive watch where the server takes one, else (before 3.6, or with {@code
 * watchManagerName=WatchManagerOptimized}) a child watch and a listing per change. The choice is made at the first
 * refusal and kept: a server does not learn persistent watches while this client is connected to the ensemble.
 */
final class MemberViewBridge implements MemberView {

    private static final Logger LOG = LoggerFactory.getLogger(MemberViewBridge.class);

    private final MemberNodes nodes;
    private final PersistentWatchMemberView persistent;
    private final ChildWatchMemberView fallback;
    private volatile boolean unsupported;

    MemberViewBridge(ZkPort zk, String parent, Clock clock) {
        this.nodes = new MemberNodes(zk, parent);
        this.persistent = new PersistentWatchMemberView(nodes, clock);
        this.fallback = new ChildWatchMemberView(nodes);
    }

    @Override
    public MembersSnapshot read(Runnable onChange) {
        if (!unsupported) {
            try {
                return persistent.read(onChange);
            } catch (PersistentWatchMemberView.Refused e) {
                LOG.warn(
                        "ZooKeeper refused a persistent watch ({}): the leader of {} lists the members on every change",
                        e.code(),
                        nodes.zk.abs(nodes.parent));
                unsupported = true;
            }
        }
        return fallback.read(onChange);
    }

    @Override
    public MembersSnapshot list() {
        return nodes.list();
    }
}
