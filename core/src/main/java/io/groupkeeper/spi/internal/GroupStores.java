package io.groupkeeper.spi.internal;

import io.groupkeeper.spi.CoordinationStore;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * How core reaches a store's protocol. A {@link CoordinationStore} is what an application builds and hands to
 * {@code GroupKeeper}; the per-group {@link GroupStore} it serves is the protocol between core and the store, which no
 * application calls. So that {@code CoordinationStore}'s public signature names no type of this package, each store
 * class registers here, once, from its static initializer, the function that gives its group views:
 *
 * <pre>{@code static { GroupStores.register(ZooKeeperStore.class, ZooKeeperStore::groupStore); }}</pre>
 *
 * <p>A store's class is initialised before any instance of it exists, so a store handed to core has always
 * registered. The function of the nearest registered class up the store's class hierarchy answers. (The pattern of the
 * JDK's {@code SharedSecrets}: a friend's access without a public method.)
 */
public final class GroupStores {

    private static final Map<Class<?>, BiFunction<CoordinationStore, String, GroupStore>> GROUPS =
            new ConcurrentHashMap<>();

    private GroupStores() {}

    /** Registers how stores of {@code type} (and of its subclasses that register nothing) give their group views. */
    public static <S extends CoordinationStore> void register(
            Class<S> type, BiFunction<? super S, String, GroupStore> groups) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(groups, "groups");
        GROUPS.put(type, (store, groupId) -> groups.apply(type.cast(store), groupId));
    }

    /**
     * The per-group view of {@code store} for {@code groupId}: cheap, may be called repeatedly.
     *
     * @throws IllegalArgumentException naming the store's class when no class of its hierarchy registered
     */
    public static GroupStore of(CoordinationStore store, String groupId) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(groupId, "groupId");
        for (Class<?> c = store.getClass(); c != null; c = c.getSuperclass()) {
            BiFunction<CoordinationStore, String, GroupStore> groups = GROUPS.get(c);
            if (groups != null) {
                return groups.apply(store, groupId);
            }
        }
        throw new IllegalArgumentException(store.getClass().getName() + " (" + store.describe()
                + ") is not a store groupkeeper can run on: its class registered no group views"
                + " (GroupStores.register); use ZooKeeperStore, or testkit's InMemoryCoordinationStore");
    }
}
