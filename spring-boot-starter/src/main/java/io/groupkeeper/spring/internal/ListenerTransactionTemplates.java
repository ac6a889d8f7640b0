package io.groupkeeper.spring.internal;

import io.groupkeeper.kafka.container.BatchHandler;
import io.groupkeeper.kafka.container.RecordHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.kafka.core.KafkaResourceHolder;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A transactional {@code KafkaTemplate} used inside a transactional {@code @GroupKeeperListener} call joins the
 * listener's transaction, as it joins the container's transaction in Spring for Apache Kafka: Spring's container binds
 * a {@link KafkaResourceHolder} (its transactional producer) to the thread under the template's
 * {@link ProducerFactory} ({@code TransactionSynchronizationManager}), and the template's {@code inTransaction()} /
 * {@code ProducerFactoryUtils.getTransactionalResourceHolder} find it there. Here the bound holder's producer is a
 * {@link ListenerTransactionProducer}: the template's sends go to the container's transactional sender of the call,
 * so they commit with the input position (exactly once in {@code read_committed}) or are dropped when the call throws.
 *
 * <p>Bound around every call of a transactional listener, for each transaction-capable producer factory of the
 * application (the factories of its {@code KafkaTemplate} beans and its {@code ProducerFactory} beans); unbound after.
 */
final class ListenerTransactionTemplates {

    private final List<ProducerFactory<?, ?>> factories;

    private ListenerTransactionTemplates(List<ProducerFactory<?, ?>> factories) {
        this.factories = factories;
    }

    /** The application's transaction-capable producer factories (none: the handlers are returned unchanged). */
    static ListenerTransactionTemplates of(ListableBeanFactory beans) {
        Set<ProducerFactory<?, ?>> found = new LinkedHashSet<>();
        for (KafkaTemplate<?, ?> t :
                beans.getBeansOfType(KafkaTemplate.class, false, true).values()) {
            if (t.isTransactional()) {
                found.add(t.getProducerFactory());
            }
        }
        for (ProducerFactory<?, ?> f :
                beans.getBeansOfType(ProducerFactory.class, false, true).values()) {
            if (f.transactionCapable()) {
                found.add(f);
            }
        }
        return new ListenerTransactionTemplates(new ArrayList<>(found));
    }

    RecordHandler<Object, Object> wrap(RecordHandler<Object, Object> handler) {
        if (factories.isEmpty()) {
            return handler;
        }
        return r -> {
            List<ProducerFactory<?, ?>> bound = bind();
            try {
                handler.handle(r);
            } finally {
                unbind(bound);
            }
        };
    }

    BatchHandler<Object, Object> wrap(BatchHandler<Object, Object> handler) {
        if (factories.isEmpty()) {
            return handler;
        }
        return records -> {
            List<ProducerFactory<?, ?>> bound = bind();
            try {
                handler.handle(records);
            } finally {
                unbind(bound);
            }
        };
    }

    /** Binds a holder for every factory that has none on this thread (one the application bound itself stays). */
    private List<ProducerFactory<?, ?>> bind() {
        List<ProducerFactory<?, ?>> bound = new ArrayList<>(factories.size());
        for (ProducerFactory<?, ?> f : factories) {
            if (!TransactionSynchronizationManager.hasResource(f)) {
                TransactionSynchronizationManager.bindResource(
                        f, new KafkaResourceHolder<>(new ListenerTransactionProducer<>(), Duration.ZERO));
                bound.add(f);
            }
        }
        return bound;
    }

    private static void unbind(List<ProducerFactory<?, ?>> bound) {
        for (ProducerFactory<?, ?> f : bound) {
            TransactionSynchronizationManager.unbindResourceIfPossible(f);
        }
    }
}
