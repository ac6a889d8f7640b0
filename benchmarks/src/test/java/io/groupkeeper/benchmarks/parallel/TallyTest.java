package io.groupkeeper.benchmarks.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the harness counts: records processed twice, and order violations of a contender's lanes. */
class TallyTest {

    private static final Tally.LaneOf KEY = (p, k) -> p + "/" + k;

    @Test
    void aSecondCompletionOfARecordCountsAsProcessedTwice() {
        Tally t = new Tally(0, 2, KEY, false);
        complete(t, 0, 0, "a");
        complete(t, 0, 0, "a");
        assertThat(t.all.getCount()).as("one of two records processed").isEqualTo(1);
        complete(t, 0, 1, "b");
        assertThat(t.processed()).isEqualTo(3);
        assertThat(t.unique()).isEqualTo(2);
        assertThat(t.duplicates()).isEqualTo(1);
        assertThat(t.all.getCount()).isZero();
    }

    @Test
    void twoRecordsOfOneKeyInTheHandlerAtOnceOrOutOfOffsetOrderAreViolations() {
        Tally t = new Tally(0, 10, KEY, true);
        t.start(0, 0, "a");
        t.start(0, 1, "b"); // another key: allowed
        assertThat(t.violations()).isZero();
        t.start(0, 2, "a"); // key a's record 0 still in the handler
        assertThat(t.violations()).isEqualTo(1);
        t.end(0, 0, "a", true);
        t.end(0, 2, "a", true);
        t.end(0, 1, "b", true);
        t.start(0, 1, "a"); // after offset 2 of key a had started
        t.end(0, 1, "a", true);
        assertThat(t.violations()).isEqualTo(2);
        assertThat(t.maxInHandler()).isEqualTo(3);
        assertThat(t.processed()).isEqualTo(4);
    }

    @Test
    void withoutALaneNothingIsAViolation() {
        Tally t = new Tally(0, 10, null, true);
        t.start(0, 5, "a");
        t.start(0, 4, "a");
        t.end(0, 5, "a", true);
        t.end(0, 4, "a", false); // interrupted: not processed
        assertThat(t.violations()).isZero();
        assertThat(t.processed()).isEqualTo(1);
    }

    @Test
    void anInstanceViewCountsItsOwnCompletionsAndPassesEverythingOn() {
        Tally t = new Tally(0, 3, KEY, true);
        Tally first = t.instance();
        Tally second = t.instance();
        complete(first, 0, 0, "a");
        complete(second, 0, 1, "a");
        complete(second, 0, 1, "a"); // replayed: a violation of key a's order, and processed twice
        assertThat(first.processed()).isEqualTo(1);
        assertThat(second.processed()).isEqualTo(2);
        assertThat(t.processed()).isEqualTo(3);
        assertThat(t.duplicates()).isEqualTo(1);
        assertThat(t.violations()).isEqualTo(1);
    }

    private static void complete(Tally t, int partition, long offset, String key) {
        t.start(partition, offset, key);
        t.end(partition, offset, key, true);
    }
}
