package io.groupkeeper.testkit.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.groupkeeper.testkit.InMemoryCoordinationStore;
import io.groupkeeper.zkprotocol.ZkFailure;
import io.groupkeeper.zkprotocol.ZkNode;
import io.groupkeeper.zkprotocol.ZkOp;
import io.groupkeeper.zkprotocol.ZkPort;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A silent cut not noticed yet, as ZooKeeper's client lives it: the process's requests get no answer (a background
 * one's future stays incomplete, a blocking caller and a thread that joins that future are held) while its other
 * threads run on; when the client notices, the held requests fail with a lost connection (a write was not applied,
 * unless the simulated threads say it got through before the cut); when the network returns first, they are sent and
 * answered.
 */
class HangingRequestTest {

    private static final String NODE = "/x";

    private final OneProcess process = new OneProcess(7);
    private final SimScheduler scheduler = process.scheduler;
    private final InMemoryCoordinationStore store = process.store;
    private final ZkPort port = process.port;
    private final List<String> trace = new ArrayList<>();
    private CompletableFuture<Optional<ZkNode>> read;
    private int ticks;

    @BeforeEach
    void cutWhileAThreadWaitsForARead() throws Exception {
        port.write(ZkOp.create(NODE, bytes("v0")));
        store.cutSilently();

        // One thread of the process sends a background read and waits for it; another writes (a blocking call).
        scheduler.executor("p/app").execute(() -> {
            read = port.readAsync(NODE, null);
            trace.add("read sent");
            try {
                trace.add("read answered " + text(read.join()));
            } catch (CompletionException e) {
                trace.add("read failed " + e.getCause().getMessage());
            }
        });
        scheduler.executor("p").execute(() -> {
            try {
                port.write(ZkOp.set(NODE, bytes("v1"), -1));
                trace.add("write answered");
            } catch (ZkFailure e) {
                trace.add("write failed " + e.code());
            }
        });
        // And a timer thread of the same process that touches no ZooKeeper ticks on.
        scheduler.executor("p").schedule(this::tick, 100, TimeUnit.MILLISECONDS);
        runFor(1_000);
    }

    @AfterEach
    void end() {
        process.close();
    }

    private void tick() {
        ticks++;
        scheduler.executor("p").schedule(this::tick, 100, TimeUnit.MILLISECONDS);
    }

    @Test
    void heldRequestsHangWhileTheProcessRunsOnAndFailWhenTheCutIsNoticed() {
        assertThat(read).as("the read was sent").isNotNull();
        assertThat(read).as("no answer during the unnoticed cut").isNotDone();
        assertThat(trace).containsExactly("read sent");
        assertThat(ticks).as("the process's other thread ran on meanwhile").isGreaterThanOrEqualTo(9);

        int before = ticks;
        scheduler.runAs("sim", store::noticeCut);
        runFor(100);

        assertThat(read).isCompletedExceptionally();
        assertThat(trace)
                .contains("write failed CONNECTIONLOSS")
                .anySatisfy(line -> assertThat(line).startsWith("read failed").contains("CONNECTIONLOSS"));
        assertThat(ticks).isGreaterThan(before);
        scheduler.runAs("sim", store::reconnect);
        assertThat(new String(data(), StandardCharsets.UTF_8))
                .as("the write the cut held was never sent")
                .isEqualTo("v0");
    }

    @Test
    void aHeldWriteTheNoticeFailsMayHaveLandedAllTheSame() {
        scheduler.threads().lands(new Random() {
            @Override
            public boolean nextBoolean() {
                return true; // its request got through just before the cut; only the answer was lost
            }
        });
        scheduler.runAs("sim", store::noticeCut);
        runFor(100);
        scheduler.runAs("sim", store::reconnect);

        assertThat(trace).contains("write failed CONNECTIONLOSS");
        assertThat(new String(data(), StandardCharsets.UTF_8))
                .as("applied, though its caller was told the connection " + "was lost")
                .isEqualTo("v1");
    }

    @Test
    void heldRequestsAreAnsweredWhenTheNetworkReturnsBeforeTheCutIsNoticed() {
        assertThat(read).isNotDone();

        scheduler.runAs("sim", store::reconnect);
        runFor(100);

        assertThat(trace)
                .contains("write answered")
                .anySatisfy(line -> assertThat(line).startsWith("read answered v"));
        assertThat(new String(data(), StandardCharsets.UTF_8))
                .as("the held write was sent")
                .isEqualTo("v1");
    }

    private byte[] data() {
        String[] out = new String[1];
        scheduler.executor("p").execute(() -> {
            try {
                out[0] = text(port.read(NODE, null));
            } catch (RuntimeException e) {
                out[0] = "unreadable: " + e.getMessage();
            }
        });
        runFor(10);
        return out[0].getBytes(StandardCharsets.UTF_8);
    }

    private void runFor(long millis) {
        process.runFor(millis);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Optional<ZkNode> node) {
        return node.map(n -> new String(n.data(), StandardCharsets.UTF_8)).orElse("absent");
    }
}
