package io.groupkeeper.benchmarks.parallel;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The scale-out during load: one instance of a contender starts on the topic; once a third of the records are
 * processed a second instance joins the same group; the run ends when every record was processed at least once and the
 * handler has been quiet for {@value #QUIET_MS} ms (so the replays a late rebalance causes are counted too). Records
 * processed twice: handler completions beyond the first of each record, on either instance. {@code handedOver} is
 * false when the second instance processed nothing (the records ran out before the rebalance gave it any): then the
 * count says nothing about a handover. parallel-consumer's second instance needed more than 20,000 records' time
 * (30,000 records, joining at 10,000, ~4,000 records/s) to get partitions; the defaults give it 80,000.
 */
final class ScaleOut {

    static final long QUIET_MS = 2_000;

    private ScaleOut() {}

    static Map<String, Object> run(Setup setup, String name, long records, long handlerMs, String group)
            throws Exception {
        Tally tally = new Tally(handlerMs, records, null, false);
        Contender contender = Contenders.ALL.get(name);
        long start = System.nanoTime();
        long joinedAt;
        boolean complete;
        long processed;
        long unique;
        long end;
        int largestDone;
        Tally firstView = tally.instance();
        Tally secondView = tally.instance();
        try (Instance first = contender.start(setup, group, firstView)) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (tally.unique() < records / 3 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20); // polls an outside counter at a fixed pace, not synchronisation
            }
            joinedAt = tally.unique();
            try (Instance second = contender.start(setup, group, secondView)) {
                complete = tally.all.await(10, TimeUnit.MINUTES);
                long quietDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() - tally.lastNanos < TimeUnit.MILLISECONDS.toNanos(QUIET_MS)
                        && System.nanoTime() < quietDeadline) {
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                processed = tally.processed(); // before closing: what the load and the scale-out replayed
                unique = tally.unique();
                end = tally.lastNanos;
                largestDone = Math.max(first.largestDone(), second.largestDone());
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", "scale-out");
        m.put("contender", name);
        m.put("partitions", setup.partitions());
        m.put("workersPerInstance", setup.workers());
        m.put("records", records);
        m.put("secondJoinedAfterRecords", joinedAt);
        m.put("complete", complete);
        m.put("processed", processed);
        m.put("unique", unique);
        m.put("processedTwice", processed - unique);
        m.put("processedByFirst", firstView.processed());
        m.put("processedBySecond", secondView.processed());
        m.put("handedOver", secondView.processed() > 0); // false: the records ran out before the second got any
        if (largestDone >= 0) {
            m.put("largestDoneChars", largestDone);
        }
        m.put("seconds", Math.round((end - start) / 1e7) / 100.0);
        return m;
    }
}
