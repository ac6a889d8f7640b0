package io.groupkeeper.testkit.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.Collection;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.LoggerFactory;

/**
 * Hears the listener container's warning that a drain ran out of time, logged on the draining worker's thread (a
 * revocation's: "... record(s) of revoked [...] still in flight after ... ms; released without them"; a stop's: "...
 * still in flight after the stop deadline ..."), and tells the {@link HandoverChecker}: that release is not a graceful
 * one. The container logs it through the logger named after {@code Dispatcher} (ProgressDispatch's), turned on at WARN
 * for the run and kept off the console unless {@code -Dgroupkeeper.containerSimulation.log=true}. Should the warning's
 * words change, a drain that ran out is judged as a graceful handover and fails the check loudly: nothing passes
 * unjudged.
 */
final class DrainWarnings extends AppenderBase<ILoggingEvent> {

    private final Logger logger =
            (Logger) LoggerFactory.getLogger("io.groupkeeper.kafka.container.internal.Dispatcher");
    private final HandoverChecker handovers;
    /** The simulated thread running now (the one that logs). */
    private final Supplier<String> running;
    /** The member id of the process a simulated thread belongs to; null: none. */
    private final Function<String, String> processOf;

    private final IntSupplier partitions;
    private Level level;
    private boolean additive;

    DrainWarnings(
            HandoverChecker handovers,
            Supplier<String> running,
            Function<String, String> processOf,
            IntSupplier partitions) {
        this.handovers = handovers;
        this.running = running;
        this.processOf = processOf;
        this.partitions = partitions;
    }

    /** Listens from now on (until {@link #detach}). */
    void attach() {
        level = logger.getLevel();
        additive = logger.isAdditive();
        if (!Boolean.getBoolean("groupkeeper.containerSimulation.log")) { // (on: it logs at INFO to the console)
            logger.setLevel(Level.WARN);
            logger.setAdditive(false);
        }
        setContext(logger.getLoggerContext());
        start();
        logger.addAppender(this);
    }

    void detach() {
        logger.detachAppender(this);
        stop();
        logger.setLevel(level);
        logger.setAdditive(additive);
    }

    @Override
    protected void append(ILoggingEvent e) {
        String m = e.getMessage();
        Object[] args = e.getArgumentArray();
        if (m.contains("of revoked {} still in flight") && args != null && args.length > 1) {
            for (Object tp : (Collection<?>) args[1]) {
                handovers.drainRanOut(((TopicPartition) tp).partition());
            }
        } else if (m.contains("still in flight after the stop deadline")) {
            String process = processOf.apply(running.get());
            if (process != null) {
                handovers.drainRanOutOf(process, partitions.getAsInt());
            }
        }
    }
}
