package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.zkprotocol.WireSize;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.internal.TransactionBatcher;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/** The batcher (zk-protocol) with jute's sizes, and the model's hand-computed sizes ({@link WireSize}) held to jute's. */
class TransactionBatcherTest {

    /** Sizes a port operation as jute does, with the open ACL (no namespace). */
    private static final ToLongFunction<ZkOp> JUTE = op -> ZkWire.bytes(jute(op));

    /** A request of {@code n} set operations of {@code body} bytes each. */
    private record Req(String name, int n, int body) {
        List<ZkOp> ops() {
            List<ZkOp> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ops.add(ZkOp.set("/g/offsets/" + name + "/" + i, new byte[body], 3));
            }
            return ops;
        }
    }

    private static Op jute(ZkOp op) {
        if (op instanceof ZkOp.Create c) {
            return Op.create(
                    c.path(),
                    c.data(),
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    c.ephemeral() ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT);
        }
        if (op instanceof ZkOp.SetData s) {
            return Op.setData(s.path(), s.data(), s.version());
        }
        if (op instanceof ZkOp.Delete d) {
            return Op.delete(d.path(), d.version());
        }
        return Op.check(op.path(), ((ZkOp.Check) op).version());
    }

    @Test
    void anOperationCostsItsSerializedSizeInAMulti() throws Exception {
        List<Op> ops = List.of(
                Op.check("/g/owners/t/0", -1),
                Op.setData("/g/offsets/t/0", new byte[300], 4),
                Op.create("/g/offsets/t/1", new byte[120], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                Op.delete("/g/owners/t/1", -1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new MultiOperationRecord(ops).serialize(BinaryOutputArchive.getArchive(out), "multi");
        long sum = ops.stream().mapToLong(ZkWire::bytes).sum();
        // The whole multi is the operations plus its closing header (type -1, done, error).
        assertThat(out.size()).isEqualTo(sum + TransactionBatcher.MULTI_HEADER_BYTES);
        assertThat(ZkWire.bytes(Op.setData("/p", new byte[1300], 0)) - ZkWire.bytes(Op.setData("/p", new byte[300], 0)))
                .isEqualTo(1000);
    }

    @Test
    void aBatchTakesRequestsWhileTheyFitAndAlwaysAtLeastOne() throws Exception {
        long one = new TransactionBatcher(JUTE).bytes(new Req("a", 1, 1000).ops());
        TransactionBatcher batcher = new TransactionBatcher(3 * one + 10, JUTE);
        List<Req> pending =
                List.of(new Req("a", 1, 1000), new Req("b", 1, 1000), new Req("c", 1, 1000), new Req("d", 1, 1000));
        assertThat(batcher.next(pending, 0, Req::ops).requests())
                .extracting(Req::name)
                .containsExactly("a", "b", "c");
        assertThat(batcher.next(pending, 20, Req::ops).requests())
                .as("room kept for the caller's own operations")
                .extracting(Req::name)
                .containsExactly("a", "b");
        TransactionBatcher.Batch<Req> huge =
                batcher.next(List.of(new Req("h", 1, 100_000), new Req("a", 1, 1000)), 0, Req::ops);
        assertThat(huge.requests())
                .as("too large alone: sent alone, ZooKeeper decides")
                .extracting(Req::name)
                .containsExactly("h");
        assertThat(huge.bytes()).isGreaterThan(batcher.limit());
    }

    @Test
    void splitKeepsTheOrderAndEveryBatchWithinTheLimit() throws Exception {
        List<Req> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            all.add(new Req("r" + i, 1 + i % 3, 500));
        }
        TransactionBatcher batcher = new TransactionBatcher(10_000, JUTE);
        List<TransactionBatcher.Batch<Req>> batches = batcher.split(all, 100, Req::ops);
        assertThat(batches)
                .hasSizeGreaterThan(1)
                .allSatisfy(b -> assertThat(b.bytes() + 100).isLessThanOrEqualTo(10_000));
        assertThat(batches.stream().flatMap(b -> b.requests().stream()).toList())
                .isEqualTo(all);
        assertThat(batcher.split(List.<Req>of(), 100, Req::ops))
                .singleElement()
                .satisfies(b -> assertThat(b.isEmpty()).isTrue());
    }

    @Test
    void aFailedOperationMapsBackToItsRequest() throws Exception {
        // A commit is 2 ops (check + set) or 3 (check + create + set): requests of unequal length.
        List<Req> pending = List.of(new Req("x", 2, 10), new Req("y", 3, 10), new Req("z", 2, 10));
        TransactionBatcher.Batch<Req> b = new TransactionBatcher(JUTE).next(pending, 0, Req::ops);
        assertThat(b.ops()).hasSize(7);
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6))
                .extracting(b::requestOf)
                .extracting(Req::name)
                .containsExactly("x", "x", "y", "y", "y", "z", "z");
        assertThat(List.of(0, 1, 2)).extracting(b::lastOp).containsExactly(1, 4, 6);
        assertThatThrownBy(() -> b.requestOf(7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.requestOf(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theModelsSizesAreJutes() {
        List<ZkOp> ops = List.of(
                ZkOp.check("/g/owners/t/0", -1),
                ZkOp.set("/g/offsets/t/0", new byte[300], 4),
                ZkOp.create("/g/offsets/t/1", new byte[120]),
                ZkOp.createEphemeral("/g/owners/t/1", new byte[7]),
                ZkOp.create("/g/folder", null),
                ZkOp.delete("/g/owners/t/ü", -1));
        assertThat(ops)
                .allSatisfy(op ->
                        assertThat(WireSize.of(op.path(), op)).as(op.toString()).isEqualTo(JUTE.applyAsLong(op)));
    }
}
