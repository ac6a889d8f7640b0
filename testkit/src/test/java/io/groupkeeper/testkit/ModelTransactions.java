package io.groupkeeper.testkit;

import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.testkit.internal.KeeperFailure;
import io.groupkeeper.testkit.internal.Op;
import io.groupkeeper.zkprotocol.internal.NodeCodec;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The simulator's one window on how the ZooKeeper model stores things: every transaction the model applies, decoded
 * into what the checkers need (paths, kinds, offsets, owner node's member ids), and the owner node's member id read
 * back. The model stores bytes, as a server does: this class alone decodes them, with the codec that ships
 * ({@code NodeCodec}), by the node's place in the layout.
 */
public final class ModelTransactions {

    /** What one operation of an applied transaction did. */
    public enum Kind {
        CREATE,
        SET,
        DELETE,
        CHECK
    }

    /**
     * One operation: {@code version} is the expected version (-1: any; creates: -1); {@code offset} the offset an
     * offset body carries (empty: none or not an offset body); {@code corrupt}: data no store parses; {@code
     * ownerMember} the member id an owner body names; {@code committedBy} the member id an offset body names as its
     * writer (empty: none, as in the empty node a claim makes, or an operator's).
     */
    public record Write(
            Kind kind,
            String path,
            int version,
            boolean ephemeral,
            OptionalLong offset,
            boolean corrupt,
            Optional<String> ownerMember,
            Optional<String> committedBy) {}

    /** Hears an applied transaction: the session that sent it (0: the operator, or an ending session's deletes). */
    @FunctionalInterface
    public interface Listener {
        void applied(long session, long zxid, List<Write> writes);
    }

    private static final Pattern OFFSET = Pattern.compile(".*/groups/[^/]+/offsets/[^/]+/\\d+");
    private static final Pattern OWNER = Pattern.compile(".*/groups/[^/]+/owners/[^/]+/\\d+");

    private ModelTransactions() {}

    /** Makes {@code listener} hear every transaction {@code zk} applies from now on. */
    public static void observe(InMemoryZooKeeper zk, Listener listener) {
        zk.ensemble()
                .observeTransactions((session, zxid, ops) -> listener.applied(
                        session,
                        zxid,
                        ops.stream().map(ModelTransactions::decode).toList()));
    }

    /** The member id the owner node at {@code path} names; empty if there is no such node or it names none. */
    public static Optional<String> ownerMember(InMemoryZooKeeper zk, String path) {
        try {
            return memberOf(path, zk.ensemble().getData(0, path, null).data());
        } catch (KeeperFailure e) {
            return Optional.empty();
        }
    }

    /**
     * The offset the offset node at {@code path} holds on the leader now, read without touching any session (a
     * checker's read): empty when there is no node, no offset, or a body no store parses.
     */
    public static OptionalLong offsetAt(InMemoryZooKeeper zk, String path) {
        try {
            return offsetOf(path, zk.ensemble().getData(0, path, null).data());
        } catch (KeeperFailure e) {
            return OptionalLong.empty();
        }
    }

    private static Write decode(Op op) {
        if (op instanceof Op.Create c) {
            return new Write(
                    Kind.CREATE,
                    c.path(),
                    -1,
                    c.ephemeral(),
                    offsetOf(c.path(), c.data()),
                    corrupt(c.path(), c.data()),
                    memberOf(c.path(), c.data()),
                    writerOf(c.path(), c.data()));
        }
        if (op instanceof Op.SetData s) {
            return new Write(
                    Kind.SET,
                    s.path(),
                    s.version(),
                    false,
                    offsetOf(s.path(), s.data()),
                    corrupt(s.path(), s.data()),
                    memberOf(s.path(), s.data()),
                    writerOf(s.path(), s.data()));
        }
        Kind kind = op instanceof Op.Delete ? Kind.DELETE : Kind.CHECK;
        int version = op instanceof Op.Delete d ? d.version() : ((Op.Check) op).version();
        return new Write(
                kind, op.path(), version, false, OptionalLong.empty(), false, Optional.empty(), Optional.empty());
    }

    /** The member an offset body names as its writer; empty for another node, a body naming none, or a corrupt one. */
    private static Optional<String> writerOf(String path, byte[] data) {
        if (!OFFSET.matcher(path).matches()) {
            return Optional.empty();
        }
        try {
            return NodeCodec.offset(path, data).committedBy().filter(id -> !id.isEmpty());
        } catch (CorruptNodeException e) {
            return Optional.empty();
        }
    }

    private static OptionalLong offsetOf(String path, byte[] data) {
        if (!OFFSET.matcher(path).matches()) {
            return OptionalLong.empty();
        }
        try {
            return NodeCodec.offset(path, data).offset();
        } catch (CorruptNodeException e) {
            return OptionalLong.empty();
        }
    }

    /** Whether a write leaves an offset or owner node that the store cannot read (a typo). */
    private static boolean corrupt(String path, byte[] data) {
        try {
            if (OFFSET.matcher(path).matches()) {
                NodeCodec.offset(path, data);
            } else if (OWNER.matcher(path).matches()) {
                NodeCodec.owner(path, data);
            }
            return false;
        } catch (CorruptNodeException e) {
            return true;
        }
    }

    private static Optional<String> memberOf(String path, byte[] data) {
        if (!OWNER.matcher(path).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(NodeCodec.owner(path, data).memberId());
        } catch (CorruptNodeException e) {
            return Optional.empty();
        }
    }
}
