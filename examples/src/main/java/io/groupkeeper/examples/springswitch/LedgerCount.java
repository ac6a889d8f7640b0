package io.groupkeeper.examples.springswitch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Reads the services' ledgers and counts their deliveries against the topic's log. */
final class LedgerCount {

    private LedgerCount() {}

    /** One delivery: a record of the log, by partition and offset. */
    record Delivery(int partition, long offset) {}

    /**
     * What the switch shows: the records of the log, the deliveries of each service, the records delivered more than
     * once ({@code redelivered}: deliveries beyond the first) and the records of the log neither service got
     * ({@code lost}).
     */
    record Counts(
            long inLog,
            int springDeliveries,
            int groupkeeperDeliveries,
            long redelivered,
            long lost,
            List<Delivery> examples) {
        String describe() {
            return "records in the log " + inLog + "; deliveries: spring-kafka service " + springDeliveries
                    + ", groupkeeper service " + groupkeeperDeliveries
                    + (examples.isEmpty() ? "" : "; first records redelivered or lost: " + examples);
        }
    }

    /** The complete lines of a ledger (a line being written is left for the next read). */
    static List<Delivery> read(Path ledger) {
        if (!Files.exists(ledger)) {
            return List.of();
        }
        String text;
        try {
            text = Files.readString(ledger, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Delivery> deliveries = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
            String[] f = text.substring(start, end).split(" ", 3);
            deliveries.add(new Delivery(Integer.parseInt(f[0]), Long.parseLong(f[1])));
        }
        return deliveries;
    }

    /** Whether every record of {@code log} (partition → [start, end)) was delivered at least once. */
    static boolean covers(Map<TopicPartition, long[]> log, List<Delivery> first, List<Delivery> second) {
        return count(log, first, second).lost() == 0;
    }

    static Counts count(Map<TopicPartition, long[]> log, List<Delivery> spring, List<Delivery> groupkeeper) {
        Map<Delivery, Integer> times = new HashMap<>();
        spring.forEach(d -> times.merge(d, 1, Integer::sum));
        groupkeeper.forEach(d -> times.merge(d, 1, Integer::sum));
        long redelivered = 0;
        List<Delivery> examples = new ArrayList<>();
        for (Map.Entry<Delivery, Integer> e : times.entrySet()) {
            if (e.getValue() > 1) {
                redelivered += e.getValue() - 1;
                if (examples.size() < 5) {
                    examples.add(e.getKey());
                }
            }
        }
        long inLog = 0;
        long lost = 0;
        for (Map.Entry<TopicPartition, long[]> e : log.entrySet()) {
            for (long o = e.getValue()[0]; o < e.getValue()[1]; o++) {
                inLog++;
                Delivery d = new Delivery(e.getKey().partition(), o);
                if (!times.containsKey(d)) {
                    lost++;
                    if (examples.size() < 10) {
                        examples.add(d);
                    }
                }
            }
        }
        return new Counts(inLog, spring.size(), groupkeeper.size(), redelivered, lost, examples);
    }
}
