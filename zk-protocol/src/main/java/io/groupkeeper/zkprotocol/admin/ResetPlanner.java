package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Plans resets, imports and migrations: which partitions (validated against the log, the topic registry and what the
 * group knows), their log bounds, and per partition the target the {@link ResetSpec} requests, clamped into the log
 * where the operation clamps. A {@link Planning} is made once per operation; its {@link Planning#plan} runs again on
 * every attempt, from offsets read right before the write ({@link #readFresh}).
 */
final class ResetPlanner {

    private final AdminContext ctx;

    ResetPlanner(AdminContext ctx) {
        this.ctx = ctx;
    }

    // ================================================================== planning

    /** What an operation may do beyond a reset. */
    record Operation(String name, boolean mayCreateGroup, boolean clamp) {
        static final Operation RESET = new Operation("reset", false, true);
        static final Operation IMPORT = new Operation("import", true, false);

        static Operation migrate(String source) {
            return new Operation("migrate " + source, true, true);
        }
    }

    /** The offset nodes of the planned partitions (and the group's topic folders), read right before writing. */
    record Fresh(
            Map<TopicPartition, Optional<GroupView.OffsetNode>> offsets,
            SortedSet<String> offsetFolders,
            SortedSet<String> ownerFolders,
            boolean groupExists) {}

    /** Everything about a plan that does not depend on the offsets stored now (read once, reused per attempt). */
    final class Planning {
        final GroupView view;
        final Operation op;
        final ResetSpec spec;
        /** As the caller gave it; null for all of an offsets spec's partitions. */
        final PartitionSelection selection;

        final SortedSet<TopicPartition> selected = new TreeSet<>();
        final Map<String, Integer> kafkaCounts;
        final Map<TopicPartition, Long> start = new HashMap<>();
        final Map<TopicPartition, Long> end = new HashMap<>();
        final Map<TopicPartition, Long> byTime = new HashMap<>();
        final List<String> notes = new ArrayList<>();

        Planning(
                GroupView view,
                Operation op,
                ResetSpec spec,
                PartitionSelection selection,
                Map<String, Integer> kafkaCounts) {
            this.view = view;
            this.op = op;
            this.spec = spec;
            this.selection = selection;
            this.kafkaCounts = kafkaCounts;
        }

        boolean hasBounds(TopicPartition tp) {
            return start.containsKey(tp) && end.containsKey(tp);
        }

        /** The plan from the offsets stored now; its size is checked by the writer. */
        ResetPlan plan(Fresh fresh, int attempt) {
            List<ResetPlan.Entry> entries = new ArrayList<>();
            for (TopicPartition tp : selected) {
                Optional<GroupView.OffsetNode> node = fresh.offsets.getOrDefault(tp, Optional.empty());
                entries.add(entry(tp, node));
            }
            SortedSet<String> folders = new TreeSet<>();
            boolean createsGroup = !fresh.groupExists;
            for (ResetPlan.Entry e : entries) {
                if (e.writes()) {
                    String t = e.partition().topic();
                    if (!fresh.offsetFolders.contains(t)) {
                        folders.add(AdminLayout.offsetsOfTopic(view.group, t));
                    }
                    if (!fresh.ownerFolders.contains(t)) {
                        folders.add(AdminLayout.ownersOfTopic(view.group, t));
                    }
                }
            }
            List<String> planNotes = new ArrayList<>(notes);
            if (createsGroup) {
                planNotes.add(0, "group " + view.group + " does not exist yet; it is created with the offsets");
            }
            long live = entries.stream()
                    .filter(e -> e.writes() && e.owner().isPresent())
                    .count();
            if (live > 0) {
                planNotes.add(
                        live + " partition(s) have a live owner; each owner adopts its new offset at once "
                                + "(offset watch) and at the latest at its next commit, which is refused, never overwriting it");
            }
            String described = spec.source()
                    .filter(s -> op != Operation.RESET)
                    .map(s -> "from " + s.source())
                    .orElse(spec.describe());
            return new ResetPlan(
                    view.group,
                    op.name,
                    described,
                    createsGroup,
                    entries,
                    planNotes,
                    ctx.bounds.map(LogBounds::describe),
                    false,
                    attempt,
                    folders);
        }

        private ResetPlan.Entry entry(TopicPartition tp, Optional<GroupView.OffsetNode> node) {
            int version = node.map(GroupView.OffsetNode::version).orElse(-1);
            boolean corrupt = node.isPresent() && node.get().body().isEmpty();
            OptionalLong current = node.flatMap(GroupView.OffsetNode::body)
                    .map(AdminNodes.Offset::offset)
                    .orElse(OptionalLong.empty());
            OptionalLong logStart = opt(start.get(tp));
            OptionalLong logEnd = opt(end.get(tp));
            Optional<String> owner = Optional.ofNullable(view.owners.get(tp)).map(o -> o.memberId());
            List<String> note = new ArrayList<>();
            if (corrupt) {
                note.add("current body unreadable: "
                        + AdminContext.abbreviate(node.get().raw()));
            }
            ResetSpec.Request request = spec.request(
                    tp, new ResetSpec.Position(current, logStart, logEnd, opt(byTime.get(tp)), ctx.bounds.isPresent()));
            request.note().ifPresent(note::add);
            OptionalLong requested = request.offset();
            OptionalLong target = requested;
            ResetPlan.Clamp clamp = ResetPlan.Clamp.NONE;
            if (requested.isPresent()) {
                long r = requested.getAsLong();
                if (op.clamp && logStart.isPresent() && r < logStart.getAsLong()) {
                    target = logStart;
                    clamp = ResetPlan.Clamp.LOG_START;
                    note.add("clamped from " + r + " to log start " + logStart.getAsLong());
                } else if (op.clamp && logEnd.isPresent() && r > logEnd.getAsLong()) {
                    target = logEnd;
                    clamp = ResetPlan.Clamp.LOG_END;
                    note.add("clamped from " + r + " to log end " + logEnd.getAsLong());
                } else if (r < 0) {
                    target = OptionalLong.of(0);
                    clamp = ResetPlan.Clamp.LOG_START;
                    note.add("clamped from " + r + " to 0");
                } else if (!op.clamp
                        && logStart.isPresent()
                        && logEnd.isPresent()
                        && (r < logStart.getAsLong() || r > logEnd.getAsLong())) {
                    note.add("outside the log [" + logStart.getAsLong() + ", " + logEnd.getAsLong()
                            + "]; written as given");
                }
            }
            return new ResetPlan.Entry(
                    tp, current, requested, target, clamp, logStart, logEnd, owner, String.join("; ", note), version);
        }
    }

    /** Validates the request and reads what a plan needs beyond the offsets (once per operation). */
    Planning prepare(String group, PartitionSelection selection, ResetSpec spec, Operation op) {
        Names.requireValid("group id", group);
        Objects.requireNonNull(spec, "spec");
        if (selection == null && spec.source().isEmpty()) {
            throw new IllegalArgumentException(
                    "a partition selection is required (only offsets given per partition " + "may go without)");
        }
        GroupView v = GroupView.read(ctx.reader, group);
        if (!v.exists && !op.mayCreateGroup) {
            throw ctx.unknownGroup(group);
        }
        SourceOffsets source = spec.source().orElse(null);
        SortedSet<String> topics = new TreeSet<>();
        if (source != null) {
            source.offsets().keySet().forEach(tp -> topics.add(tp.topic()));
        } else if (selection.isAllTopics()) {
            topics.addAll(v.topics());
            if (topics.isEmpty()) {
                throw new AdminException("group " + group + " has no topics (no members, owners or offsets) to reset");
            }
        } else {
            topics.addAll(selection.topics().keySet());
        }
        readRegistry(v, topics);
        Map<String, Integer> kafkaCounts = ctx.bounds.isPresent() && !topics.isEmpty()
                ? Map.copyOf(ctx.bounds.get().partitionCounts(topics))
                : Map.of();
        Planning p = new Planning(v, op, spec, selection, kafkaCounts);

        // Which partitions, each validated against what is known of its topic.
        if (source != null) {
            int ignored = 0;
            for (TopicPartition tp : source.offsets().keySet()) {
                if (selection != null && !selection.includes(tp.topic(), tp.partition())) {
                    ignored++;
                    continue;
                }
                requireKnown(
                        v,
                        tp,
                        kafkaCounts,
                        " (" + Optional.ofNullable(source.origins().get(tp)).orElse(source.source()) + ")");
                p.selected.add(tp);
            }
            if (ignored > 0) {
                p.notes.add(
                        ignored + " entries of " + source.source() + " are outside " + selection + " and are ignored");
            }
            if (p.selected.isEmpty()) {
                throw new AdminException(
                        source.source() + " has no offsets" + (ignored > 0 ? " for " + selection : ""));
            }
        } else if (selection.isAllTopics()) {
            for (String t : topics) {
                OptionalInt n = count(t, kafkaCounts, v);
                SortedSet<Integer> known = v.knownPartitions(t);
                if (n.isPresent()) {
                    for (int i = 0; i < n.getAsInt(); i++) {
                        p.selected.add(new TopicPartition(t, i));
                    }
                    SortedSet<Integer> beyond = known.tailSet(n.getAsInt());
                    if (!beyond.isEmpty()) {
                        p.notes.add("topic " + t + " has " + n.getAsInt() + " partitions; nodes of partitions " + beyond
                                + " are left untouched");
                    }
                } else if (!known.isEmpty()) {
                    known.forEach(i -> p.selected.add(new TopicPartition(t, i)));
                } else {
                    p.notes.add("topic " + t + " skipped: its partition count is unknown (not in the topic registry"
                            + (ctx.bounds.isPresent()
                                    ? ", not in " + ctx.bounds.get().describe()
                                    : "; pass --bootstrap")
                            + ")");
                }
            }
        } else {
            for (Map.Entry<String, Optional<SortedSet<Integer>>> e :
                    selection.topics().entrySet()) {
                String t = e.getKey();
                requireKnownTopic(v, t, kafkaCounts, "");
                if (e.getValue().isPresent()) {
                    for (int i : e.getValue().get()) {
                        TopicPartition tp = new TopicPartition(t, i);
                        requireKnown(v, tp, kafkaCounts, "");
                        p.selected.add(tp);
                    }
                } else {
                    OptionalInt n = count(t, kafkaCounts, v);
                    if (n.isPresent()) {
                        for (int i = 0; i < n.getAsInt(); i++) {
                            p.selected.add(new TopicPartition(t, i));
                        }
                    } else {
                        SortedSet<Integer> known = v.knownPartitions(t);
                        if (known.isEmpty()) {
                            throw new AdminException(
                                    "the partitions of topic '" + t + "' are unknown (not in the topic " + "registry"
                                            + ctx.bounds
                                                    .map(b -> ", not in " + b.describe())
                                                    .orElse("") + ")",
                                    ctx.bounds.isPresent()
                                            ? AdminException.Remedy.NAME_PARTITIONS
                                            : AdminException.Remedy.NAME_PARTITIONS_OR_LOG_BOUNDS,
                                    t);
                        }
                        known.forEach(i -> p.selected.add(new TopicPartition(t, i)));
                    }
                }
            }
        }
        if (p.selected.isEmpty()) {
            throw new AdminException(
                    "nothing to " + op.name + " in group " + group + " for " + (selection == null ? "" : selection));
        }

        // Log bounds, for the partitions of topics the log knows.
        List<TopicPartition> inLog = p.selected.stream()
                .filter(tp -> kafkaCounts.containsKey(tp.topic()))
                .toList();
        if (ctx.bounds.isPresent() && !inLog.isEmpty()) {
            p.start.putAll(ctx.bounds.get().earliest(inLog));
            p.end.putAll(ctx.bounds.get().latest(inLog));
        }
        if (spec.needsLog()) {
            for (TopicPartition tp : p.selected) {
                if (!p.hasBounds(tp)) {
                    String detail = spec.describe().split(" ")[0] + " needs the log bounds of " + tp;
                    if (ctx.bounds.isEmpty()) {
                        throw new AdminException(detail, AdminException.Remedy.LOG_BOUNDS, null);
                    }
                    throw new AdminException(detail + ": topic " + tp.topic() + " is not in "
                            + ctx.bounds.get().describe());
                }
            }
        }
        Optional<Instant> at = spec.time(ctx.clock);
        if (at.isPresent()) {
            spec.describeTime(at.get()).ifPresent(p.notes::add);
            p.byTime.putAll(ctx.bounds.get().offsetsForTimestamp(p.selected, at.get()));
        }
        if (ctx.bounds.isEmpty() && op.clamp) {
            p.notes.add("log bounds unknown (no --bootstrap): targets are not clamped to the log");
        } else if (ctx.bounds.isPresent() && inLog.size() < p.selected.size()) {
            p.notes.add("topics not in " + ctx.bounds.get().describe() + " have no log bounds: "
                    + AdminContext.topicsOf(p.selected.stream()
                            .filter(tp -> !kafkaCounts.containsKey(tp.topic()))
                            .toList()));
        }
        return p;
    }

    private void readRegistry(GroupView v, Collection<String> topics) {
        List<String> missing = topics.stream()
                .filter(t -> !v.registry.containsKey(t))
                .map(AdminLayout::topic)
                .toList();
        ctx.reader
                .data(missing)
                .forEach((path, node) -> node.ifPresent(n -> {
                    try {
                        v.registry.put(
                                path.substring(AdminLayout.TOPICS.length() + 1),
                                AdminNodes.topicPartitions(ctx.zk.abs(path), n.data()));
                    } catch (RuntimeException e) {
                        v.problems.add(e.getMessage());
                    }
                }));
    }

    /** The partition count of a topic: from the log (Kafka) if it knows the topic, else the topic registry. */
    static OptionalInt count(String topic, Map<String, Integer> kafkaCounts, GroupView v) {
        Integer k = kafkaCounts.get(topic);
        return k != null ? OptionalInt.of(k) : v.registryCount(topic);
    }

    private String countSource(String topic, Map<String, Integer> kafkaCounts) {
        return kafkaCounts.containsKey(topic)
                ? "in " + ctx.bounds.map(LogBounds::describe).orElse("the log")
                : "in the topic registry";
    }

    private void requireKnownTopic(GroupView v, String topic, Map<String, Integer> kafkaCounts, String where) {
        boolean known = count(topic, kafkaCounts, v).isPresent()
                || !v.knownPartitions(topic).isEmpty()
                || v.subscribes(topic);
        if (!known) {
            String detail = "unknown topic '" + topic + "'" + where + ": not in "
                    + (ctx.bounds.isPresent() ? ctx.bounds.get().describe() + ", not in " : "")
                    + "the topic registry, and group " + v.group + " has no offsets, owners or members for it";
            throw ctx.bounds.isEmpty()
                    ? new AdminException(detail, AdminException.Remedy.LOOK_UP_IN_LOG, topic)
                    : new AdminException(detail);
        }
    }

    private void requireKnown(GroupView v, TopicPartition tp, Map<String, Integer> kafkaCounts, String where) {
        requireKnownTopic(v, tp.topic(), kafkaCounts, where);
        OptionalInt n = count(tp.topic(), kafkaCounts, v);
        if (n.isPresent()) {
            if (tp.partition() >= n.getAsInt()) {
                throw new AdminException("unknown partition " + tp + where + ": topic " + tp.topic() + " has "
                        + n.getAsInt() + " partition(s) " + countSource(tp.topic(), kafkaCounts));
            }
        } else if (!v.knownPartitions(tp.topic()).contains(tp.partition())) {
            String detail = "unknown partition " + tp + where + ": group " + v.group
                    + " has no offset, owner or target for it and the partition count of " + tp.topic() + " is unknown";
            throw ctx.bounds.isEmpty()
                    ? new AdminException(detail, AdminException.Remedy.COUNT_FROM_LOG, tp.topic())
                    : new AdminException(detail);
        }
    }

    /** The offset nodes of the planned partitions and the group's topic folders, read right before writing. */
    Fresh readFresh(Planning p) {
        String g = p.view.group;
        Map<String, Optional<List<String>>> folders =
                ctx.reader.children(List.of(AdminLayout.offsets(g), AdminLayout.owners(g)));
        boolean groupExists = ctx.reader.data(AdminLayout.group(g)).isPresent();
        Map<String, TopicPartition> paths = new LinkedHashMap<>();
        p.selected.forEach(tp -> paths.put(AdminLayout.offset(g, tp), tp));
        Map<TopicPartition, Optional<GroupView.OffsetNode>> offsets = new HashMap<>();
        if (groupExists) {
            ctx.reader
                    .data(paths.keySet())
                    .forEach((path, node) ->
                            offsets.put(paths.get(path), node.map(n -> GroupView.decode(ctx.reader, path, n, null))));
        }
        return new Fresh(
                offsets,
                new TreeSet<>(folders.get(AdminLayout.offsets(g)).orElse(List.of())),
                new TreeSet<>(folders.get(AdminLayout.owners(g)).orElse(List.of())),
                groupExists);
    }

    private static OptionalLong opt(Long v) {
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
