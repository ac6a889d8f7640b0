package io.groupkeeper.spring.differential.groupkeeper;

import io.groupkeeper.spring.GroupKeeperListener;
import io.groupkeeper.spring.differential.Sample01;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

/** The same sample on the starter: the only change docs/spring-boot.md asks for, the annotation. */
@SpringBootApplication
@Import(Sample01.class)
public class GroupKeeperSide {

    @Component
    static class Listener {
        private final Sample01.Body body;

        Listener(Sample01.Body body) {
            this.body = body;
        }

        @GroupKeeperListener(id = "${app.group}", topics = "${app.topic}")
        void listen(Sample01.Foo value) {
            body.listen(value);
        }
    }
}
