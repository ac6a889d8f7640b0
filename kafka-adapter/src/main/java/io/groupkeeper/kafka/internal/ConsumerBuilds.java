package io.groupkeeper.kafka.internal;

import io.groupkeeper.kafka.CoordinatedConsumer;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds a {@link CoordinatedConsumer} from its public builder on other {@link KafkaClients} than
 * {@link KafkaClients#REAL} (the listener container's workers, which the simulation runs on a model of Kafka). The
 * builder's options reach this package through the function its class installs when it is initialized, so that no
 * public method of the API names an internal type.
 */
public final class ConsumerBuilds {

    private static volatile Function<CoordinatedConsumer.Builder<?, ?>, AdapterConfig<?, ?>> configs;

    private ConsumerBuilds() {}

    /** Called once, by {@code CoordinatedConsumer.Builder}'s class initializer; later calls change nothing. */
    public static synchronized void configs(Function<CoordinatedConsumer.Builder<?, ?>, AdapterConfig<?, ?>> f) {
        if (configs == null) {
            configs = Objects.requireNonNull(f, "configs");
        }
    }

    /** {@code builder.build()}, on {@code clients}: the same validation, the same consumer. */
    @SuppressWarnings("unchecked")
    public static <K, V> CoordinatedConsumer<K, V> build(
            CoordinatedConsumer.Builder<K, V> builder, KafkaClients clients) {
        if (clients == KafkaClients.REAL) {
            return builder.build();
        }
        return new DefaultCoordinatedConsumer<>((AdapterConfig<K, V>) configs.apply(builder), clients);
    }
}
