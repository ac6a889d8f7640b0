package io.groupkeeper.testkit.internal;

import io.groupkeeper.zkprotocol.ZkOp;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The faults armed on a {@link MemClient}'s next writes ({@link MemClient#failNextWrites}, {@link
 * MemClient#landNextClaimLate}, {@link MemClient#cutNextPublish}): which write meets which, each taken once. What a
 * fault does to the connection is the client's; this keeps only the plan. Thread-safe (its own lock).
 */
final class WriteFaults {

    /** A write that fails with a lost connection: applied first or not; the first also outliving its session. */
    record Failure(boolean afterApply, boolean sessionExpires) {}

    /** A claim that lands late: how long the follower stays behind, whether the connection stays down, who is told. */
    record LateClaim(Duration catchUp, boolean staysDown, Runnable landed) {}

    private int failingWrites;
    private boolean failingAfterApply;
    /** Whether the next failing write also sees its session expire before the client hears how it went. */
    private boolean failingExpires;

    private LateClaim lateClaim;
    private boolean cutPublish;
    /** With a publish cut armed: the assignment body the publish under way writes (its transactions share it). */
    private byte[] publishUnderWay;

    synchronized void failNext(int count, boolean afterApply, boolean sessionExpires) {
        this.failingWrites = count;
        this.failingAfterApply = afterApply;
        this.failingExpires = sessionExpires && count > 0;
    }

    synchronized void landNextClaimLate(LateClaim claim) {
        this.lateClaim = claim;
    }

    synchronized void cutNextPublish() {
        cutPublish = true;
        publishUnderWay = null;
    }

    /** The failure the next write meets, taken; null when none is armed. */
    synchronized Failure takeFailure() {
        if (failingWrites <= 0) {
            return null;
        }
        failingWrites--;
        boolean expires = failingExpires;
        failingExpires = false;
        return new Failure(failingAfterApply, expires);
    }

    /**
     * How long the follower stays behind {@code ops} (with full paths) if they are a claim and a late landing is armed,
     * else null. Not taken: a claim the server refuses leaves it armed for the next ({@link #takeLateClaim} once landed).
     */
    synchronized Duration lateClaimFor(List<Op> ops) {
        return lateClaim == null || !claims(ops) ? null : lateClaim.catchUp();
    }

    /** The late claim has landed: disarmed, and returned. */
    synchronized LateClaim takeLateClaim() {
        LateClaim c = lateClaim;
        lateClaim = null;
        return c;
    }

    /** Whether {@code ops} is a claim: it creates an owner node (ephemeral, in an {@code owners} folder). */
    private static boolean claims(List<Op> ops) {
        return ops.stream()
                .anyMatch(op ->
                        op instanceof Op.Create c && c.ephemeral() && c.path().contains("/owners/"));
    }

    /**
     * Whether this transaction is the second of a publish while a cut is armed. A publish's transactions each check the
     * latch node and end with the same assignment body (one generation); another publish writes another generation.
     */
    synchronized boolean publishCut(List<ZkOp> ops) {
        if (!cutPublish
                || ops.size() < 2
                || !(ops.get(0) instanceof ZkOp.Check check)
                || !check.path().contains("/leader/")
                || !(ops.get(ops.size() - 1) instanceof ZkOp.SetData head)) {
            return false;
        }
        if (publishUnderWay != null && Arrays.equals(publishUnderWay, head.data())) {
            cutPublish = false;
            publishUnderWay = null;
            return true;
        }
        publishUnderWay = head.data();
        return false;
    }
}
