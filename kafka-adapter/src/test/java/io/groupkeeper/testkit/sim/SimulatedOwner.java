package io.groupkeeper.testkit.sim;

import io.groupkeeper.kafka.container.internal.DefaultListenerContainer;
import java.lang.reflect.Field;
import java.util.List;

/**
 * Ties a transactional worker's sender to the simulated thread that carries the worker. The container's
 * {@code TransactionalOutput} answers only on its worker's {@code Thread} (the handler's thread, during the call), and
 * in the simulator that loop runs on a carrier of {@link SimThreads}, which keeps it for the loop's whole run: the
 * sender's owner becomes that carrier, by reflection, as the worker's task begins ({@link SimKafkaClients#onStart}).
 * Nothing else of the container is changed: the check stays as strict (one thread, during the call).
 */
final class SimulatedOwner {

    private SimulatedOwner() {}

    /** The sender of {@code container}'s worker whose thread is {@code worker} now answers on {@code carrier}. */
    static void ofOutput(DefaultListenerContainer<?, ?> container, Thread worker, Thread carrier) {
        try {
            for (Object w :
                    (List<?>) field(DefaultListenerContainer.class, "workers").get(container)) {
                if (field(w.getClass(), "thread").get(w) != worker) {
                    continue;
                }
                Object output = field(w.getClass(), "output").get(w);
                if (output != null) {
                    field(output.getClass(), "owner").set(output, carrier);
                }
                return;
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "the simulator ties a transactional worker's sender to its carrier through the container's "
                            + "fields (workers, thread, output, owner): " + e,
                    e);
        }
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
