package io.groupkeeper.benchmarks.support;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.internal.ClaimResult;
import io.groupkeeper.spi.internal.CommitOutcome;
import io.groupkeeper.spi.internal.CommitRequest;
import io.groupkeeper.spi.internal.GroupStore;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.spi.internal.Registration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A member that registered and claimed a range of partitions, committing fenced batches of them through
 * {@link GroupStore#commit} (one ZooKeeper transaction of {@code check owner + setData offset @version} per partition,
 * docs/zk-layout.md). Each batch commits the next offset. A refused commit throws: nobody else owns these partitions.
 * Not thread-safe: one thread per committer.
 */
public final class FencedCommitter implements AutoCloseable {

    private static final long GENERATION = 1;

    private final GroupStore group;
    private final String memberId;
    private final Registration registration;
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final long[] versions;
    private long session;
    private long offset;

    /** Registers {@code memberId} in {@code group} and claims {@code topic} partitions {@code first .. first+count-1}. */
    public FencedCommitter(GroupStore group, String memberId, String topic, int first, int count) {
        this.group = group;
        this.memberId = memberId;
        this.versions = new long[count];
        this.registration = group.registerMember(new MemberInfo(
                memberId, Optional.empty(), "bench", new TreeSet<>(Set.of(topic)), Instant.now(), "sticky"));
        for (int i = 0; i < count; i++) {
            TopicPartition tp = new TopicPartition(topic, first + i);
            ClaimResult r = group.claim(tp, memberId, GENERATION, () -> {});
            if (!(r instanceof ClaimResult.Claimed claimed)) {
                throw new IllegalStateException("could not claim " + tp + ": " + r);
            }
            partitions.add(tp);
            versions[i] = claimed.offset().version();
            session = claimed.lease().session();
        }
    }

    /** Commits the next offset of {@code n} of the claimed partitions, starting at index {@code from} (wrapping). */
    public CommitOutcome commit(int from, int n) {
        List<CommitRequest> requests = new ArrayList<>(n);
        offset++;
        for (int i = 0; i < n; i++) {
            int k = (from + i) % partitions.size();
            requests.add(new CommitRequest(partitions.get(k), offset, versions[k], session));
        }
        CommitOutcome outcome = group.commit(memberId, GENERATION, requests);
        if (!outcome.conflicted().isEmpty()) {
            throw new IllegalStateException("fenced commit refused for " + outcome.conflicted());
        }
        outcome.committed()
                .forEach((tp, v) -> versions[tp.partition() - partitions.get(0).partition()] = v);
        return outcome;
    }

    public int partitions() {
        return partitions.size();
    }

    @Override
    public void close() {
        registration.close();
    }
}
