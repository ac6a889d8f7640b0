package io.groupkeeper.spi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.groupkeeper.spi.ConnectionListener;
import io.groupkeeper.spi.CoordinationStore;
import io.groupkeeper.spi.TopicRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupStoresTest {

    /** A store class that registers its group views, recording which groups were asked for. */
    static class RegisteredStore extends BareStore {
        static {
            GroupStores.register(RegisteredStore.class, RegisteredStore::groupStore);
        }

        final List<String> asked = new ArrayList<>();
        final GroupStore view = (GroupStore) Proxy.newProxyInstance(
                GroupStore.class.getClassLoader(), new Class<?>[] {GroupStore.class}, (p, m, a) -> null);

        GroupStore groupStore(String groupId) {
            asked.add(groupId);
            return view;
        }
    }

    /** A subclass that registers nothing of its own: its parent's registration answers. */
    static final class SubclassOfRegistered extends RegisteredStore {}

    @Test
    void aRegisteredStoreGivesItsGroupViewsAndSoDoItsSubclasses() {
        RegisteredStore store = new RegisteredStore();
        assertThat(GroupStores.of(store, "orders")).isSameAs(store.view);
        assertThat(store.asked).containsExactly("orders");

        SubclassOfRegistered sub = new SubclassOfRegistered();
        assertThat(GroupStores.of(sub, "payments")).isSameAs(sub.view);
        assertThat(sub.asked).containsExactly("payments");
    }

    @Test
    void aStoreWhoseClassRegisteredNothingIsRefusedWithItsClassAndDescriptionNamed() {
        assertThatThrownBy(() -> GroupStores.of(new BareStore(), "orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(BareStore.class.getName())
                .hasMessageContaining("bare store at nowhere")
                .hasMessageContaining("registered no group views");
    }

    /** A CoordinationStore that registers nothing. */
    static class BareStore implements CoordinationStore {
        @Override
        public void start() {}

        @Override
        public TopicRegistry topics() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void addConnectionListener(ConnectionListener listener) {}

        @Override
        public void removeConnectionListener(ConnectionListener listener) {}

        @Override
        public long sessionId() {
            return 0;
        }

        @Override
        public boolean isConnected() {
            return false;
        }

        @Override
        public String describe() {
            return "bare store at nowhere";
        }

        @Override
        public void close() {}
    }
}
