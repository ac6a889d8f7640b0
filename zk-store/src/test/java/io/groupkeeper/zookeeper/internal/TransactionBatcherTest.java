package io.groupkeeper.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.curator.framework.api.transaction.TypeAndPath;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

class TransactionBatcherTest {

    /** A request of {@code n} set operations of {@code body} bytes each. */
    private record Req(String name, int n, int body) {
        List<CuratorOp> ops() {
            List<CuratorOp> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ops.add(op(Op.setData("/g/offsets/" + name + "/" + i, new byte[body], 3)));
            }
            return ops;
        }
    }

    private static CuratorOp op(Op op) {
        return new CuratorOp() {
            @Override
            public Op get() {
                return op;
            }

            @Override
            public TypeAndPath getTypeAndPath() {
                return new TypeAndPath(OperationType.SET_DATA, op.getPath());
            }
        };
    }

    @Test
    void anOperationCostsItsSerializedSizeInAMulti() throws Exception {
        List<Op> ops = List.of(Op.check("/g/owners/t/0", -1), Op.setData("/g/offsets/t/0", new byte[300], 4),
                Op.create("/g/offsets/t/1", new byte[120], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                Op.delete("/g/owners/t/1", -1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new MultiOperationRecord(ops).serialize(BinaryOutputArchive.getArchive(out), "multi");
        long sum = ops.stream().mapToLong(TransactionBatcher::bytes).sum();
        // The whole multi is the operations plus its closing header (type -1, done, error).
        assertThat(out.size()).isEqualTo(sum + TransactionBatcher.MULTI_HEADER_BYTES);
        assertThat(TransactionBatcher.bytes(Op.setData("/p", new byte[1300], 0))
                - TransactionBatcher.bytes(Op.setData("/p", new byte[300], 0))).isEqualTo(1000);
    }

    @Test
    void aBatchTakesRequestsWhileTheyFitAndAlwaysAtLeastOne() throws Exception {
        long one = TransactionBatcher.bytes(new Req("a", 1, 1000).ops());
        TransactionBatcher batcher = new TransactionBatcher(3 * one + 10);
        List<Req> pending = List.of(new Req("a", 1, 1000), new Req("b", 1, 1000), new Req("c", 1, 1000),
                new Req("d", 1, 1000));
        assertThat(batcher.next(pending, 0, Req::ops).requests()).extracting(Req::name).containsExactly("a", "b", "c");
        assertThat(batcher.next(pending, 20, Req::ops).requests()).as("room kept for the caller's own operations")
                .extracting(Req::name).containsExactly("a", "b");
        TransactionBatcher.Batch<Req> huge = batcher.next(List.of(new Req("h", 1, 100_000), new Req("a", 1, 1000)),
                0, Req::ops);
        assertThat(huge.requests()).as("too large alone: sent alone, ZooKeeper decides").extracting(Req::name)
                .containsExactly("h");
        assertThat(huge.bytes()).isGreaterThan(batcher.limit());
    }

    @Test
    void splitKeepsTheOrderAndEveryBatchWithinTheLimit() throws Exception {
        List<Req> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            all.add(new Req("r" + i, 1 + i % 3, 500));
        }
        TransactionBatcher batcher = new TransactionBatcher(10_000);
        List<TransactionBatcher.Batch<Req>> batches = batcher.split(all, 100, Req::ops);
        assertThat(batches).hasSizeGreaterThan(1).allSatisfy(b -> assertThat(b.bytes() + 100).isLessThanOrEqualTo(10_000));
        assertThat(batches.stream().flatMap(b -> b.requests().stream()).toList()).isEqualTo(all);
        assertThat(batcher.split(List.<Req>of(), 100, Req::ops)).singleElement()
                .satisfies(b -> assertThat(b.isEmpty()).isTrue());
    }

    @Test
    void aFailedOperationMapsBackToItsRequest() throws Exception {
        // A commit is 2 ops (check + set) or 3 (check + create + set): requests of unequal length.
        List<Req> pending = List.of(new Req("x", 2, 10), new Req("y", 3, 10), new Req("z", 2, 10));
        TransactionBatcher.Batch<Req> b = new TransactionBatcher().next(pending, 0, Req::ops);
        assertThat(b.ops()).hasSize(7);
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6)).extracting(b::requestOf).extracting(Req::name)
                .containsExactly("x", "x", "y", "y", "y", "z", "z");
        assertThat(List.of(0, 1, 2)).extracting(b::lastOp).containsExactly(1, 4, 6);
        assertThatThrownBy(() -> b.requestOf(7)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.requestOf(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
