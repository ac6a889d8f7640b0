package io.groupkeeper.examples.springswitch;

import io.groupkeeper.spring.GroupKeeperListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** {@link SpringKafkaBilling} moved to the starter: only the annotation (and its import) differ. */
public class GroupKeeperBilling {

    private final Ledger ledger;

    public GroupKeeperBilling(Ledger ledger) {
        this.ledger = ledger;
    }

    @GroupKeeperListener(group = "${app.group}", topics = "${app.topic}")
    public void bill(ConsumerRecord<String, String> order) {
        ledger.received(order);
    }
}
