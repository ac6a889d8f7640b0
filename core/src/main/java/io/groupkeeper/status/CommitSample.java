package io.groupkeeper.status;

import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One commit as the status evaluator sees it: the offset committed, the partition's log end offset when the
 * committer knew it (the Kafka adapter does), and when. The last few samples are kept in the offset node.
 */
public record CommitSample(long offset, OptionalLong logEnd, Instant at) {

    public CommitSample {
        Objects.requireNonNull(logEnd, "logEnd");
        Objects.requireNonNull(at, "at");
    }

    /** Records not yet processed at this commit, if the log end was known. */
    public OptionalLong lag() {
        return logEnd.isPresent() ? OptionalLong.of(Math.max(0, logEnd.getAsLong() - offset)) : OptionalLong.empty();
    }
}
