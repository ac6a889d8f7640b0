package io.groupkeeper.chaos;

import io.groupkeeper.chaos.ChaosLedger.SinkAction;
import io.groupkeeper.chaos.ChaosLedger.SinkOp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges the run's fenced sink ({@link ChaosSink}) from its log, by who did what in which order — not by comparing
 * tokens, which is what is under test. Per partition of a group, in the sink's order:
 * <ul>
 *   <li>a write is <b>late</b> when another claim opened the partition after the writer's claim (the member and the
 *   token the write carries) last did: another member's, or a newer one of the writer itself (it lost the partition
 *   and claimed it again while a handler of the old claim still ran). The writer is then a former owner (a zombie).
 *   Every late write must be refused — one accepted is a <b>violation</b> (the successor's token was not above the
 *   zombie's, or the sink ignored it);</li>
 *   <li>every other write carrying a token, and every open, is the current owner's and must be accepted — a refusal
 *   is a violation (a token that did not grow with the change of hands);</li>
 *   <li>no accepted operation may carry a token below one accepted before it (accepted <b>out of order</b>: a
 *   violation).</li>
 * </ul>
 * A write without a token (its batch was read under no claim) is refused by the member's side; it is counted, and
 * it is never a violation. A write without a token, or under one its member never opened, is late when another
 * member opened the partition after the writer's latest open.
 */
final class FencingCheck {

    /**
     * @param lateWrites    writes of former owners made after another member opened the partition
     * @param lateRefused   how many of those the sink refused (all, when the token works)
     * @param untokened     writes made with no token
     * @param violations    late writes accepted, an owner's operations refused, operations accepted out of order
     */
    record Result(long lateWrites, long lateRefused, long untokened, long violations, List<String> problems) {}

    private FencingCheck() {}

    static Result judge(List<SinkOp> ops) {
        Map<String, List<SinkOp>> byPartition = new TreeMap<>();
        for (SinkOp op : ops) {
            byPartition
                    .computeIfAbsent(op.group() + "/" + op.partition(), k -> new ArrayList<>())
                    .add(op);
        }
        long lateWrites = 0;
        long lateRefused = 0;
        long untokened = 0;
        long violations = 0;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, List<SinkOp>> e : byPartition.entrySet()) {
            List<SinkOp> list = e.getValue();
            list.sort(Comparator.comparingLong(SinkOp::seq));
            Map<String, Long> lastOpen = new HashMap<>(); // claim (member/token) -> seq of its latest open
            Map<String, Long> lastOpenOfMember = new HashMap<>(); // member -> seq of its latest open
            long maxAccepted = Long.MIN_VALUE;
            for (SinkOp op : list) {
                String problem = null; // at most one per operation
                if (op.accepted() && op.token() < maxAccepted) {
                    problem = op.action() + " of " + op.member() + " with token " + op.token()
                            + " accepted after token " + maxAccepted + " (out of order)";
                }
                if (op.accepted()) {
                    maxAccepted = Math.max(maxAccepted, op.token());
                }
                if (op.action() == SinkAction.OPEN) {
                    lastOpen.put(claim(op), op.seq());
                    lastOpenOfMember.put(op.member(), op.seq());
                    if (!op.accepted()) {
                        problem = "the open of new owner " + op.member() + " with token " + op.token()
                                + " was refused (the partition was at " + op.current() + "): its token did not grow "
                                + "with the change of hands";
                    }
                } else {
                    if (op.token() == SinkOp.NO_TOKEN) {
                        untokened++;
                    }
                    boolean late;
                    String claim = claim(op);
                    Long opened = lastOpen.get(claim);
                    if (opened != null) {
                        late = lastOpen.entrySet().stream()
                                .anyMatch(o -> !o.getKey().equals(claim) && o.getValue() > opened);
                    } else { // no token, or one its member never opened: judged by the member's latest open
                        long mine = lastOpenOfMember.getOrDefault(op.member(), Long.MIN_VALUE);
                        late = lastOpenOfMember.entrySet().stream()
                                .anyMatch(o -> !o.getKey().equals(op.member()) && o.getValue() > mine);
                    }
                    if (late) {
                        lateWrites++;
                        if (!op.accepted()) {
                            lateRefused++;
                        } else {
                            problem = "late write of offset " + op.offset() + " by former owner " + op.member()
                                    + " (token " + op.token() + ") accepted after another claim opened it";
                        }
                    } else if (!op.accepted() && op.token() != SinkOp.NO_TOKEN) {
                        problem = "write of offset " + op.offset() + " by its owner " + op.member() + " (token "
                                + op.token() + ") refused, the partition was at " + op.current();
                    }
                }
                if (problem != null) {
                    violations++;
                    problems.add(e.getKey() + ": " + problem);
                }
            }
        }
        return new Result(lateWrites, lateRefused, untokened, violations, problems);
    }

    /** The claim an operation was made under: its member and its token. */
    private static String claim(SinkOp op) {
        return op.member() + "/" + op.token();
    }
}
