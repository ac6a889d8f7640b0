package io.groupkeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The protocol's retry delays: exponential with decorrelated jitter, within fixed bounds, reproducible by seed. */
class RetryDelaysTest {

    @Test
    void theFirstDelayAfterASuccessIsTheMinimum() {
        RetryDelays d = new RetryDelays(new SplittableRandom(1));
        assertThat(d.current()).isEqualTo(RetryDelays.MIN_MS);
        assertThat(d.failed()).isEqualTo(RetryDelays.MIN_MS);
    }

    @Test
    void everyDelayIsBetweenTheMinimumAndThreeTimesTheLastNeverAboveTheMaximum() {
        for (long seed = 0; seed < 200; seed++) {
            RetryDelays d = new RetryDelays(new SplittableRandom(seed));
            long last = d.failed();
            for (int i = 0; i < 30; i++) {
                long next = d.failed();
                assertThat(next).isBetween(RetryDelays.MIN_MS, Math.min(RetryDelays.MAX_MS, 3 * last));
                assertThat(d.current()).isEqualTo(next);
                last = next;
            }
        }
    }

    @Test
    void delaysReachTheMaximumAfterRepeatedFailures() {
        RetryDelays d = new RetryDelays(maximal());
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            delays.add(d.failed());
        }
        assertThat(delays).containsExactly(50L, 150L, 450L, 1350L, 2000L, 2000L, 2000L, 2000L);
    }

    @Test
    void aSuccessStartsAgainAtTheMinimum() {
        RetryDelays d = new RetryDelays(maximal());
        d.failed();
        d.failed();
        d.failed();
        d.succeeded();
        assertThat(d.current()).isEqualTo(RetryDelays.MIN_MS);
        assertThat(d.failed()).isEqualTo(RetryDelays.MIN_MS);
        assertThat(d.failed()).isEqualTo(150L);
    }

    @Test
    void membersThatFailedTogetherRetryApart() {
        Set<List<Long>> schedules = new HashSet<>();
        for (int member = 0; member < 50; member++) {
            RetryDelays d = RetryDelays.seededBy("g", "m-" + member);
            List<Long> delays = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                delays.add(d.failed());
            }
            schedules.add(delays);
        }
        assertThat(schedules).as("50 members, 50 different schedules").hasSize(50);
    }

    @Test
    void theSameSeedGivesTheSameDelays() {
        RetryDelays a = RetryDelays.seededBy("g", "m");
        RetryDelays b = RetryDelays.seededBy("g", "m");
        for (int i = 0; i < 10; i++) {
            assertThat(a.failed()).isEqualTo(b.failed());
        }
    }

    @Test
    void aFixedDelayIsSpreadOverItsUpperHalf() {
        RetryDelays d = new RetryDelays(new SplittableRandom(7));
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            long around = d.around(2_000);
            assertThat(around).isBetween(1_000L, 2_000L);
            seen.add(around);
        }
        assertThat(seen).as("spread, not one value").hasSizeGreaterThan(100);
        assertThat(d.around(1)).isEqualTo(1);
    }

    /** Always draws the upper bound: the jitter's envelope. */
    private static RandomGenerator maximal() {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long nextLong(long origin, long bound) {
                return bound - 1;
            }
        };
    }
}
