package io.groupkeeper.spring.idle;

import io.groupkeeper.spring.GroupKeeperListener;
import io.groupkeeper.spring.ListenerIdleEvent;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Two listeners on a quiet topic: {@code plain} takes its idle event interval from the properties, {@code own} names
 * its own on the annotation (1.5 s); every {@link ListenerIdleEvent} is collected.
 */
@SpringBootApplication
public class IdleApp {

    @Component
    public static class Listeners {
        public final Queue<ListenerIdleEvent> idle = new ConcurrentLinkedQueue<>();

        @GroupKeeperListener(id = "plain", group = "${app.group}", topics = "${app.quiet}")
        void plain(List<String> values) {}

        @GroupKeeperListener(
                id = "own",
                group = "${app.group}-own",
                topics = "${app.quiet}",
                idleEventInterval = "1500ms")
        void own(List<String> values) {}

        @EventListener
        void onIdle(ListenerIdleEvent event) {
            idle.add(event);
        }
    }
}
