package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.spi.MemberIdInUseException;
import io.groupkeeper.spi.StoreException;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import io.groupkeeper.zkprotocol.ZkStat;

/**
 * A member's ephemeral node: its creation (a node of this client's own expired session is replaced; one of another
 * live session refuses the member id), the check that it is ours, and its deletion on deregistration.
 */
final class MemberRegistrar {

    private final ZkPort zk;
    private final String group;

    MemberRegistrar(ZkPort zk, String group) {
        this.zk = zk;
        this.group = group;
    }

    /** Creates the member's ephemeral node, or finds it already ours; replaces one left by an expired session of ours. */
    Registration create(MemberInfo info) {
        String path = ZkPaths.member(group, info.memberId());
        byte[] body = NodeCodec.member(info);
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                zk.write(ZkOp.createEphemeral(path, body));
                return () -> deregisterPath(path);
            } catch (ZkFailure e) {
                if (e.code() != ZkCode.NODEEXISTS) {
                    throw ZkFailure.toStore("register member " + path, e);
                }
                ZkStat stat = zk.exists(path, null).orElse(null);
                if (stat == null) {
                    continue;
                }
                if (zk.isCurrentSession(stat.ephemeralOwner())) {
                    return () -> deregisterPath(path);
                }
                if (zk.isPastSession(stat.ephemeralOwner())) {
                    deleteQuietly(path, stat.version());
                    continue;
                }
                throw new MemberIdInUseException("member id '" + info.memberId() + "' of group '" + group
                        + "' is already registered by another live session (0x"
                        + Long.toHexString(stat.ephemeralOwner()) + ") at " + zk.abs(path)
                        + "; is another process running with the same instance id?");
            }
        }
        throw new StoreException("could not register member node " + path);
    }

    /** Deletes {@code memberId}'s node if it exists in this client's current session (a registration whose reply was lost). */
    void deregister(String memberId) {
        deregisterPath(ZkPaths.member(group, memberId));
    }

    private void deregisterPath(String path) {
        ZkStat stat = zk.exists(path, null).orElse(null);
        if (stat != null && zk.isCurrentSession(stat.ephemeralOwner())) {
            deleteQuietly(path, stat.version());
        }
    }

    private void deleteQuietly(String path, int version) {
        try {
            zk.write(ZkOp.delete(path, version));
        } catch (ZkFailure e) {
            if (e.code() != ZkCode.NONODE && e.code() != ZkCode.BADVERSION) {
                throw ZkFailure.toStore("delete " + path, e);
            }
            // gone or replaced: nothing of ours to delete
        }
    }

    /** Whether {@code memberId}'s node exists in this client's current session. */
    boolean isRegistered(String memberId) {
        return zk.exists(ZkPaths.member(group, memberId), null)
                .map(s -> zk.isCurrentSession(s.ephemeralOwner()))
                .orElse(false);
    }
}
