package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.spi.CorruptNodeException;
import io.groupkeeper.spi.internal.MemberInfo;
import io.groupkeeper.zkprotocol.ZkNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One group as read from ZooKeeper in four batched round trips (read multis): the group and assignment nodes; the
 * group's folders; members, targets, the elected leader and the per-topic folders; then every owner and offset node
 * and the registry entries of the group's topics. Not atomic across batches (nothing in ZooKeeper is, short of one multi): writes built on it are
 * conditioned on the versions read, so a stale view makes them fail instead of acting on it.
 */
final class GroupView {

    /** An offset node: its decoded body (empty if corrupt) and version. */
    record OffsetNode(Optional<AdminNodes.Offset> body, int version, byte[] raw) {}

    final String group;
    final boolean exists;
    Optional<AdminNodes.Group> body = Optional.empty();
    /** The group node's creation zxid (0 when it does not exist): a group deleted and made again has another. */
    long createdZxid;

    final SortedMap<String, MemberInfo> members = new TreeMap<>();
    /** Every child of the members folder, decodable or not: the live sessions. */
    final SortedSet<String> memberNodes = new TreeSet<>();

    long generation;
    Optional<String> publishedBy = Optional.empty();
    final SortedMap<String, SortedSet<TopicPartition>> targets = new TreeMap<>();
    Optional<String> electedLeader = Optional.empty();
    final SortedMap<TopicPartition, AdminNodes.Owner> owners = new TreeMap<>();
    final SortedMap<TopicPartition, OffsetNode> offsets = new TreeMap<>();
    final SortedSet<String> offsetParents = new TreeSet<>();
    final SortedSet<String> ownerParents = new TreeSet<>();
    final Map<String, Integer> registry = new HashMap<>();
    final List<String> problems = new ArrayList<>();

    private GroupView(String group, boolean exists) {
        this.group = group;
        this.exists = exists;
    }

    static GroupView read(ZkReader zk, String group) {
        Names.requireValid("group id", group);
        String groupPath = AdminLayout.group(group);
        Map<String, Optional<ZkNode>> head = zk.data(List.of(groupPath, AdminLayout.assignment(group)));
        if (head.get(groupPath).isEmpty()) {
            return new GroupView(group, false);
        }
        GroupView v = new GroupView(group, true);
        v.createdZxid = head.get(groupPath).get().stat().czxid();
        try {
            v.body = Optional.of(AdminNodes.group(
                    zk.abs(groupPath), head.get(groupPath).get().data()));
        } catch (CorruptNodeException e) {
            v.problems.add(e.getMessage());
        }
        head.get(AdminLayout.assignment(group)).ifPresent(n -> {
            try {
                AdminNodes.Assignment a = AdminNodes.assignment(zk.abs(AdminLayout.assignment(group)), n.data());
                v.generation = a.generation();
                v.publishedBy = a.leader();
            } catch (CorruptNodeException e) {
                v.problems.add(e.getMessage());
            }
        });

        // Round trip 2: the folders' children.
        Map<String, Optional<List<String>>> folders = zk.children(List.of(
                AdminLayout.members(group),
                AdminLayout.assignment(group),
                AdminLayout.leader(group),
                AdminLayout.owners(group),
                AdminLayout.offsets(group)));
        List<String> memberIds = valid(folders.get(AdminLayout.members(group)));
        v.memberNodes.addAll(folders.get(AdminLayout.members(group)).orElse(List.of()));
        List<String> targetIds = valid(folders.get(AdminLayout.assignment(group)));
        List<String> latches = folders.get(AdminLayout.leader(group)).orElse(List.of());
        v.ownerParents.addAll(valid(folders.get(AdminLayout.owners(group))));
        v.offsetParents.addAll(valid(folders.get(AdminLayout.offsets(group))));

        // Round trip 3: members, targets, the first latch node, and the per-topic folders.
        List<String> dataPaths = new ArrayList<>();
        memberIds.forEach(m -> dataPaths.add(AdminLayout.member(group, m)));
        targetIds.forEach(m -> dataPaths.add(AdminLayout.target(group, m)));
        Optional<String> firstLatch = latches.stream().min(GroupView::bySequence);
        firstLatch.ifPresent(l -> dataPaths.add(AdminLayout.leader(group) + "/" + l));
        Map<String, Optional<ZkNode>> data = zk.data(dataPaths);
        List<String> topicFolders = new ArrayList<>();
        v.ownerParents.forEach(t -> topicFolders.add(AdminLayout.ownersOfTopic(group, t)));
        v.offsetParents.forEach(t -> topicFolders.add(AdminLayout.offsetsOfTopic(group, t)));
        Map<String, Optional<List<String>>> partitionFolders = zk.children(topicFolders);

        for (String m : memberIds) {
            String path = AdminLayout.member(group, m);
            data.get(path).ifPresent(n -> {
                try {
                    MemberInfo info = AdminNodes.member(zk.abs(path), n.data());
                    v.members.put(m, info);
                } catch (CorruptNodeException e) {
                    v.problems.add(e.getMessage());
                }
            });
        }
        for (String m : targetIds) {
            String path = AdminLayout.target(group, m);
            data.get(path).ifPresent(n -> {
                try {
                    v.targets.put(m, AdminNodes.targetPartitions(zk.abs(path), n.data()));
                } catch (CorruptNodeException e) {
                    v.problems.add(e.getMessage());
                }
            });
        }
        firstLatch
                .flatMap(l -> data.get(AdminLayout.leader(group) + "/" + l))
                .map(n -> new String(n.data(), StandardCharsets.UTF_8).trim())
                .filter(Names::isValid)
                .ifPresent(id -> v.electedLeader = Optional.of(id));

        // Round trip 4: owner and offset nodes, and registry entries of the group's topics.
        List<String> nodePaths = new ArrayList<>();
        Map<String, TopicPartition> ownerPaths = new HashMap<>();
        Map<String, TopicPartition> offsetPaths = new HashMap<>();
        for (String t : v.ownerParents) {
            for (int p : partitions(partitionFolders.get(AdminLayout.ownersOfTopic(group, t)))) {
                TopicPartition tp = new TopicPartition(t, p);
                ownerPaths.put(AdminLayout.owner(group, tp), tp);
                nodePaths.add(AdminLayout.owner(group, tp));
            }
        }
        for (String t : v.offsetParents) {
            for (int p : partitions(partitionFolders.get(AdminLayout.offsetsOfTopic(group, t)))) {
                TopicPartition tp = new TopicPartition(t, p);
                offsetPaths.put(AdminLayout.offset(group, tp), tp);
                nodePaths.add(AdminLayout.offset(group, tp));
            }
        }
        SortedSet<String> topicsSoFar = v.topics();
        topicsSoFar.forEach(t -> nodePaths.add(AdminLayout.topic(t)));
        Map<String, Optional<ZkNode>> nodes = zk.data(nodePaths);
        ownerPaths.forEach((path, tp) -> nodes.get(path).ifPresent(n -> {
            try {
                v.owners.put(tp, AdminNodes.owner(zk.abs(path), n.data()));
            } catch (CorruptNodeException e) {
                v.problems.add(e.getMessage());
            }
        }));
        offsetPaths.forEach((path, tp) ->
                nodes.get(path).ifPresent(n -> v.offsets.put(tp, decode(zk, path, n, v.problems))));
        for (String t : topicsSoFar) {
            nodes.get(AdminLayout.topic(t)).ifPresent(n -> {
                try {
                    v.registry.put(t, AdminNodes.topicPartitions(zk.abs(AdminLayout.topic(t)), n.data()));
                } catch (CorruptNodeException e) {
                    v.problems.add(e.getMessage());
                }
            });
        }
        return v;
    }

    static OffsetNode decode(ZkReader zk, String path, ZkNode n, List<String> problems) {
        try {
            return new OffsetNode(
                    Optional.of(AdminNodes.offset(zk.abs(path), n.data())),
                    n.stat().version(),
                    n.data());
        } catch (CorruptNodeException e) {
            if (problems != null) {
                problems.add(e.getMessage());
            }
            return new OffsetNode(Optional.empty(), n.stat().version(), n.data());
        }
    }

    /** Every topic the group knows: subscriptions, targets, owners, offsets. */
    SortedSet<String> topics() {
        SortedSet<String> topics = new TreeSet<>();
        members.values().forEach(m -> topics.addAll(m.topics()));
        targets.values().forEach(s -> s.forEach(tp -> topics.add(tp.topic())));
        owners.keySet().forEach(tp -> topics.add(tp.topic()));
        offsets.keySet().forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    /** Partitions of {@code topic} the group has a node or a target for. */
    SortedSet<Integer> knownPartitions(String topic) {
        SortedSet<Integer> known = new TreeSet<>();
        for (TopicPartition tp : offsets.keySet()) {
            if (tp.topic().equals(topic)) {
                known.add(tp.partition());
            }
        }
        for (TopicPartition tp : owners.keySet()) {
            if (tp.topic().equals(topic)) {
                known.add(tp.partition());
            }
        }
        targets.values()
                .forEach(s -> s.forEach(tp -> {
                    if (tp.topic().equals(topic)) {
                        known.add(tp.partition());
                    }
                }));
        return known;
    }

    boolean subscribes(String topic) {
        return members.values().stream().anyMatch(m -> m.topics().contains(topic));
    }

    /** The member the current generation gives {@code tp}, if any. */
    Optional<String> targetOf(TopicPartition tp) {
        for (Map.Entry<String, SortedSet<TopicPartition>> e : targets.entrySet()) {
            if (e.getValue().contains(tp)) {
                return Optional.of(e.getKey());
            }
        }
        return Optional.empty();
    }

    GroupState state() {
        if (members.isEmpty()) {
            return GroupState.EMPTY;
        }
        for (String m : members.keySet()) {
            if (!targets.containsKey(m)) {
                return GroupState.REBALANCING;
            }
        }
        SortedMap<TopicPartition, String> wanted = new TreeMap<>();
        targets.forEach((m, s) -> {
            if (members.containsKey(m)) {
                s.forEach(tp -> wanted.put(tp, m));
            }
        });
        SortedMap<TopicPartition, String> held = new TreeMap<>();
        owners.forEach((tp, o) -> held.put(tp, o.memberId()));
        return wanted.equals(held) ? GroupState.STABLE : GroupState.REBALANCING;
    }

    OptionalInt registryCount(String topic) {
        Integer n = registry.get(topic);
        return n == null ? OptionalInt.empty() : OptionalInt.of(n);
    }

    private static List<String> valid(Optional<List<String>> children) {
        List<String> out = new ArrayList<>();
        for (String c : children.orElse(List.of())) {
            if (Names.isValid(c)) {
                out.add(c);
            }
        }
        return out;
    }

    private static List<Integer> partitions(Optional<List<String>> children) {
        if (children == null) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (String c : children.orElse(List.of())) {
            try {
                int p = Integer.parseInt(c);
                if (p >= 0) {
                    out.add(p);
                }
            } catch (NumberFormatException e) {
                // not a partition node (created by hand?): ignored
            }
        }
        Collections.sort(out);
        return out;
    }

    /** Orders Curator LeaderLatch nodes ({@code _c_<uuid>-latch-0000000003}) by their sequence number. */
    static int bySequence(String a, String b) {
        return sequence(a).compareTo(sequence(b));
    }

    private static String sequence(String node) {
        int i = node.lastIndexOf("latch-");
        return i < 0 ? node : node.substring(i + "latch-".length());
    }
}
