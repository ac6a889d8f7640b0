package io.groupkeeper.cli.monitor;

import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The monitor's meters in a Prometheus registry (names in docs/metrics.md). Series come and go with groups,
 * partitions and owners: {@link #update} sets every series of the current samples and removes the ones no sample
 * has any more, so a deleted group disappears from {@code /metrics}. Values are plain holders read at scrape time:
 * between samples a scrape sees the last values. Updated by the sampling thread only; scraped from any thread.
 */
final class MonitorMetrics {

    private static final String[] STATUSES = GroupSample.statusLabels();

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Series> series = new HashMap<>();
    private final Holder up = new Holder();
    private final Holder groups = new Holder();
    private final Holder samples = new Holder();

    /** A value read by a gauge or function counter. */
    static final class Holder {
        private volatile double value = Double.NaN;

        double get() {
            return value;
        }

        void set(double v) {
            value = v;
        }
    }

    private record Series(Meter meter, Holder holder) {}

    MonitorMetrics() {
        Gauge.builder("groupkeeper.monitor.up", up, Holder::get)
                .description(
                        "1 if the last sample reached ZooKeeper and Kafka, 0 otherwise (values are then the last known)")
                .strongReference(true)
                .register(registry);
        up.set(0);
        Gauge.builder("groupkeeper.monitor.groups", groups, Holder::get)
                .description("Groups under the namespace")
                .strongReference(true)
                .register(registry);
        groups.set(0);
        FunctionCounter.builder("groupkeeper.monitor.samples", samples, Holder::get)
                .description("Samples taken by the monitor")
                .register(registry);
        samples.set(0);
    }

    /** The Prometheus text exposition of every series. */
    String scrape() {
        return registry.scrape();
    }

    void up(boolean isUp) {
        up.set(isUp ? 1 : 0);
    }

    void update(Collection<GroupSample> current, long sampleCount) {
        samples.set(sampleCount);
        groups.set(current.size());
        Set<String> seen = new HashSet<>();
        for (GroupSample g : current) {
            Tags gt = Tags.of("group", g.group());
            GroupDescription d = g.description();
            gauge(seen, "groupkeeper.group.generation", "Published generation of the group", gt, d.generation());
            gauge(
                    seen,
                    "groupkeeper.group.members",
                    "Live members of the group",
                    gt,
                    d.members().size());
            counter(
                    seen,
                    "groupkeeper.group.rebalances",
                    "Generation changes the monitor has seen",
                    gt,
                    g.rebalances());
            counter(
                    seen,
                    "groupkeeper.group.commits",
                    "Offset node writes the monitor has seen (partition commits, "
                            + "plus admin writes and the creation a first claim makes)",
                    gt,
                    g.commits());
            gauge(
                    seen,
                    "groupkeeper.group.commit.rate",
                    "Partition commits per second between the last two samples",
                    gt,
                    g.commitRate());
            gauge(seen, "groupkeeper.group.lag.records", "Sum of the partitions' lag in records", gt, g.totalLag());
            String groupStatus = g.statusLabel();
            for (String s : STATUSES) {
                gauge(
                        seen,
                        "groupkeeper.group.status",
                        "1 for the group's current status (its worst partition's)",
                        gt.and("status", s),
                        s.equals(groupStatus) ? 1 : 0);
            }
            Map<String, String> statuses = g.partitionStatus();
            for (GroupDescription.Partition p : d.partitions()) {
                Tags pt = gt.and(
                        "topic",
                        p.partition().topic(),
                        "partition",
                        String.valueOf(p.partition().partition()));
                gauge(
                        seen,
                        "groupkeeper.lag.records",
                        "Log end minus committed offset",
                        pt,
                        p.lag().isPresent() ? p.lag().getAsLong() : Double.NaN);
                gauge(
                        seen,
                        "groupkeeper.lag.seconds",
                        "Now minus the timestamp of the next record to process; 0 when " + "caught up",
                        pt,
                        p.lagTime().map(t -> t.toMillis() / 1000.0).orElse(Double.NaN));
                gauge(
                        seen,
                        "groupkeeper.committed.offset",
                        "Committed offset (next to process)",
                        pt,
                        p.committed().isPresent() ? p.committed().getAsLong() : Double.NaN);
                gauge(
                        seen,
                        "groupkeeper.log.end.offset",
                        "Log end offset",
                        pt,
                        p.logEnd().isPresent() ? p.logEnd().getAsLong() : Double.NaN);
                String status = statuses.get(p.partition().toString());
                if (status != null) {
                    for (String s : STATUSES) {
                        gauge(
                                seen,
                                "groupkeeper.partition.status",
                                "1 for the partition's current status",
                                pt.and("status", s),
                                s.equals(status) ? 1 : 0);
                    }
                }
                if (p.owner().isPresent()) {
                    gauge(
                            seen,
                            "groupkeeper.partition.owned",
                            "1 for the member that owns the partition now",
                            pt.and("member", p.owner().get()),
                            1);
                }
            }
        }
        series.entrySet().removeIf(e -> {
            if (seen.contains(e.getKey())) {
                return false;
            }
            registry.remove(e.getValue().meter());
            return true;
        });
    }

    private void gauge(Set<String> seen, String name, String help, Tags tags, double value) {
        holder(
                        seen,
                        name,
                        tags,
                        h -> Gauge.builder(name, h, Holder::get)
                                .description(help)
                                .tags(tags)
                                .strongReference(true)
                                .register(registry))
                .set(value);
    }

    private void counter(Set<String> seen, String name, String help, Tags tags, double total) {
        holder(
                        seen,
                        name,
                        tags,
                        h -> FunctionCounter.builder(name, h, Holder::get)
                                .description(help)
                                .tags(tags)
                                .register(registry))
                .set(total);
    }

    private Holder holder(Set<String> seen, String name, Tags tags, Function<Holder, Meter> create) {
        String key = name + tags;
        seen.add(key);
        Series s = series.get(key);
        if (s == null) {
            Holder h = new Holder();
            s = new Series(create.apply(h), h);
            series.put(key, s);
        }
        return s.holder();
    }
}
