package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.ZkCode;
import io.groupkeeper.zkprotocol.ZkPort;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * Partitions whose claim transaction lost its answer (the connection broke: it may have landed), with the session it
 * was sent in. Until a read after a {@code sync} has seen the owner node, "not held" is not decided from a read that a
 * lagging server may answer.
 */
final class ClaimsInDoubt {

    private final ZkPort zk;
    private final String group;
    private final Map<TopicPartition, Long> sentIn = new ConcurrentHashMap<>();

    ClaimsInDoubt(ZkPort zk, String group) {
        this.zk = zk;
        this.group = group;
    }

    /** A claim sent in {@code session} failed with {@code code}: if its answer was lost, its outcome is unknown. */
    void noteIfLost(TopicPartition tp, long session, ZkCode code) {
        if (code == ZkCode.CONNECTIONLOSS || code == ZkCode.OPERATIONTIMEOUT) {
            sentIn.put(tp, session);
        }
    }

    /** A claim of {@code tp} landed: its outcome is known. */
    void settled(TopicPartition tp) {
        sentIn.remove(tp);
    }

    /**
     * After a claim whose outcome is unknown, in the same session: {@code sync} first, so the reads that decide whether
     * the member holds the partition see that claim's transaction if it landed. The client may have reconnected to a
     * server that has not applied it yet; a read there finds no owner node, the member forgets the partition, and the
     * owner node it then does have blocks the next owner for the rest of the session. The admin syncs in the same case
     * ({@code LostReply}).
     *
     * <p>The claim may also have gone out in a newer session than the one the member judges in ({@code session}): the
     * client's handle moves to a new session before the member hears of it (Curator tells of the reconnection on its own
     * thread). The member then reads "not held" in its old session and forgets the partition, while the claim's owner
     * node, if it landed, lives as long as the new session and blocks the next owner. So after the sync that node is
     * removed: {@code undoInSession} gets the session the claim went out in.
     */
    void syncIfInDoubt(TopicPartition tp, long session, LongConsumer undoInSession) {
        Long doubt = sentIn.get(tp);
        if (doubt == null) {
            return;
        }
        if (doubt == zk.handleSession()) {
            zk.sync(ZkPaths.owner(group, tp));
            if (doubt != session) {
                undoInSession.accept(doubt);
            }
        }
        sentIn.remove(tp, doubt); // synced, or an ended session: its ephemeral node is gone either way
    }
}
