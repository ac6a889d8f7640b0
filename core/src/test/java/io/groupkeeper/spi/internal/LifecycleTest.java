package io.groupkeeper.spi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LifecycleTest {

    private final Lifecycle l = new Lifecycle("thing");

    @Test
    void itStartsOnceAndClosesOnce() {
        assertThat(l.state()).isEqualTo(Lifecycle.State.LATENT);
        l.start();
        assertThat(l.isStarted()).isTrue();
        assertThatThrownBy(l::start).isInstanceOf(IllegalStateException.class).hasMessage("thing already started");
        assertThat(l.close()).as("was").isEqualTo(Lifecycle.State.STARTED);
        assertThat(l.close()).as("closing again finds it closed: nothing to do").isEqualTo(Lifecycle.State.CLOSED);
        assertThat(l.isClosed()).isTrue();
    }

    @Test
    void aClosedOneNeverStarts() {
        assertThat(l.close()).isEqualTo(Lifecycle.State.LATENT);
        assertThatThrownBy(l::start).isInstanceOf(IllegalStateException.class).hasMessage("thing already closed");
        assertThat(l.isStarted()).isFalse();
    }

    @Test
    void requireStartedNamesTheState() {
        assertThatThrownBy(() -> l.requireStarted("before use"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("thing must be started before use (is latent)");
        l.start();
        l.requireStarted("before use");
    }

    @Test
    void ofManyThreadsExactlyOneStartsAndExactlyOneCloses() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger started = new AtomicInteger();
            AtomicInteger closed = new AtomicInteger();
            Future<?>[] fs = new Future<?>[8];
            for (int i = 0; i < fs.length; i++) {
                fs[i] = pool.submit(() -> {
                    go.await();
                    try {
                        l.start();
                        started.incrementAndGet();
                    } catch (IllegalStateException already) {
                        // another thread started it
                    }
                    if (l.close() != Lifecycle.State.CLOSED) {
                        closed.incrementAndGet();
                    }
                    return null;
                });
            }
            go.countDown();
            for (Future<?> f : fs) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThat(started).hasValueLessThanOrEqualTo(1);
            assertThat(closed).hasValue(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
