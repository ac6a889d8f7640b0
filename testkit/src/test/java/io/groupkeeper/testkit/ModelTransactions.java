package io.groupkeeper.testkit;

import io.groupkeeper.testkit.internal.Bodies;
import io.groupkeeper.testkit.internal.Ensemble;
import io.groupkeeper.testkit.internal.KeeperFailure;
import io.groupkeeper.testkit.internal.Op;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The simulator's one window on how the ZooKeeper model stores things: every transaction the model applies, decoded
 * into what the checkers need (paths, kinds, offsets, owner node's member ids), and the owner node's member id read
 * back. The model's node bodies are typed records today; when the model stores bytes, this class alone decodes them
 * (with the shipped codec) and the checkers stay as they are.
 */
public final class ModelTransactions {

    /** What one operation of an applied transaction did. */
    public enum Kind { CREATE, SET, DELETE, CHECK }

    /**
     * One operation: {@code version} is the expected version (-1: any; creates: -1); {@code offset} the offset an
     * offset body carries (empty: none or not an offset body); {@code corrupt}: data no store parses; {@code
     * ownerMember} the member id an owner body names.
     */
    public record Write(Kind kind, String path, int version, boolean ephemeral, OptionalLong offset, boolean corrupt,
                        Optional<String> ownerMember) {
    }

    /** Hears an applied transaction: the session that sent it (0: the operator, or an ending session's deletes). */
    @FunctionalInterface
    public interface Listener {
        void applied(long session, long zxid, List<Write> writes);
    }

    private ModelTransactions() {
    }

    /** Makes {@code listener} hear every transaction {@code zk} applies from now on. */
    public static void observe(InMemoryZooKeeper zk, Listener listener) {
        zk.ensemble().observeTransactions((session, zxid, ops) ->
                listener.applied(session, zxid, ops.stream().map(ModelTransactions::decode).toList()));
    }

    /** The member id the owner node at {@code path} names; empty if there is no such node or it names none. */
    public static Optional<String> ownerMember(InMemoryZooKeeper zk, String path) {
        try {
            return memberOf(zk.ensemble().getData(0, path, null).data());
        } catch (KeeperFailure e) {
            return Optional.empty();
        }
    }

    private static Write decode(Op op) {
        if (op instanceof Op.Create c) {
            return new Write(Kind.CREATE, c.path(), -1, c.ephemeral(), offsetOf(c.data()),
                    c.data() instanceof Bodies.Garbage, memberOf(c.data()));
        }
        if (op instanceof Op.SetData s) {
            return new Write(Kind.SET, s.path(), s.version(), false, offsetOf(s.data()),
                    s.data() instanceof Bodies.Garbage, memberOf(s.data()));
        }
        Kind kind = op instanceof Op.Delete ? Kind.DELETE : Kind.CHECK;
        int version = op instanceof Op.Delete d ? d.version() : ((Op.Check) op).version();
        return new Write(kind, op.path(), version, false, OptionalLong.empty(), false, Optional.empty());
    }

    private static OptionalLong offsetOf(Object data) {
        return data instanceof Bodies.Offset o ? o.offset() : OptionalLong.empty();
    }

    private static Optional<String> memberOf(Object data) {
        return data instanceof Bodies.Owner o ? Optional.of(o.memberId()) : Optional.empty();
    }
}
