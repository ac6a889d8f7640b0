package io.groupkeeper.zookeeper.internal;

import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.MemberInfo;
import io.groupkeeper.spi.Registration;
import io.groupkeeper.spi.StoreException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A member's ephemeral node: its creation (a node of this client's own expired session is replaced; one of another
 * live session refuses the member id), the check that it is ours, and its deletion on deregistration.
 */
final class MemberRegistrar {

    private final ZkSession zk;
    private final String group;

    MemberRegistrar(ZkSession zk, String group) {
        this.zk = zk;
        this.group = group;
    }

    /** Creates the member's ephemeral node, or finds it already ours; replaces one left by an expired session of ours. */
    Registration create(MemberInfo info) {
        String path = ZkPaths.member(group, info.memberId());
        byte[] body = NodeCodec.member(info);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                zk.requireConnected("register member " + zk.abs(path));
                zk.stats().write(1);
                zk.client().create().withMode(CreateMode.EPHEMERAL).forPath(path, body);
                return () -> deregister(path);
            } catch (KeeperException.NodeExistsException e) {
                Stat stat = zk.exists(path, null);
                if (stat == null) {
                    continue;
                }
                if (zk.isCurrentSession(stat.getEphemeralOwner())) {
                    return () -> deregister(path);
                }
                if (zk.isPastSession(stat.getEphemeralOwner())) {
                    deleteQuietly(path, stat.getVersion());
                    continue;
                }
                throw new MemberIdInUseException("member id '" + info.memberId() + "' of group '" + group
                        + "' is already registered by another live session (0x"
                        + Long.toHexString(stat.getEphemeralOwner()) + ") at " + zk.abs(path)
                        + "; is another process running with the same instance id?");
            } catch (Exception e) {
                throw ZkSession.failure("register member " + path, e);
            }
        }
        throw new StoreException("could not register member node " + path);
    }

    private void deregister(String path) {
        Stat stat = zk.exists(path, null);
        if (stat != null && zk.isCurrentSession(stat.getEphemeralOwner())) {
            deleteQuietly(path, stat.getVersion());
        }
    }

    private void deleteQuietly(String path, int version) {
        zk.requireConnected("delete " + zk.abs(path));
        try {
            zk.stats().write(1);
            zk.client().delete().withVersion(version).forPath(path);
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            // gone or replaced: nothing of ours to delete
        } catch (Exception e) {
            throw ZkSession.failure("delete " + path, e);
        }
    }

    /** Whether {@code memberId}'s node exists in this client's current session. */
    boolean isRegistered(String memberId) {
        Stat stat = zk.exists(ZkPaths.member(group, memberId), null);
        return stat != null && zk.isCurrentSession(stat.getEphemeralOwner());
    }
}
