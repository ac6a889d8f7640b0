package io.groupkeeper.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.groupkeeper.TopicPartition;
import io.groupkeeper.status.LagTimeRule;
import io.groupkeeper.status.PartitionStatus;
import io.groupkeeper.zkprotocol.admin.DeleteResult;
import io.groupkeeper.zkprotocol.admin.GroupDescription;
import io.groupkeeper.zkprotocol.admin.GroupStatus;
import io.groupkeeper.zkprotocol.admin.GroupSummary;
import io.groupkeeper.zkprotocol.admin.ResetPlan;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** Renders admin results as tables or JSON on the command's output. */
final class Printer {

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final PrintWriter out;
    private final boolean json;

    Printer(PrintWriter out, boolean json) {
        this.out = out;
        this.json = json;
    }

    // ------------------------------------------------------------------ groups

    void groups(List<GroupSummary> groups) {
        if (json) {
            ArrayNode a = JSON.createArrayNode();
            for (GroupSummary g : groups) {
                ObjectNode n = a.addObject();
                n.put("group", g.group());
                n.put("state", g.state().name());
                n.put("members", g.members());
                n.put("generation", g.generation());
                put(n, "leader", g.leader());
                ArrayNode t = n.putArray("topics");
                g.topics().forEach(t::add);
                n.put("partitionsWithOffsets", g.partitionsWithOffsets());
            }
            emit(a);
            return;
        }
        Table t = new Table("GROUP", "STATE", "MEMBERS", "GENERATION", "LEADER", "TOPICS");
        for (GroupSummary g : groups) {
            t.row(
                    g.group(),
                    g.state(),
                    g.members(),
                    g.generation(),
                    g.leader().orElse(""),
                    String.join(",", g.topics()));
        }
        t.print(out);
        if (groups.isEmpty()) {
            out.println("(no groups)");
        }
    }

    void describe(GroupDescription d) {
        describe(d, null);
    }

    /** The description, and with {@code status} (may be null) the lag status of the group and of each partition. */
    void describe(GroupDescription d, GroupStatus status) {
        describe(d, status, Optional.empty());
    }

    void describe(GroupDescription d, GroupStatus status, Optional<Duration> maxLagTime) {
        Map<TopicPartition, PartitionStatus> byPartition = new HashMap<>();
        if (status != null) {
            status.partitions().forEach(r -> byPartition.put(r.partition(), r.status()));
        }
        if (json) {
            ObjectNode n = JSON.createObjectNode();
            n.put("group", d.group());
            n.put("state", d.state().name());
            n.put("generation", d.generation());
            put(n, "leader", d.leader());
            put(n, "publishedBy", d.publishedBy());
            n.put("assignor", d.assignor());
            put(n, "createdAt", d.createdAt().map(Object::toString));
            put(n, "logBounds", d.logBounds());
            if (status != null) {
                n.put("status", status.status().name());
                n.put("statusWindow", status.window().toString());
                maxLagTime.ifPresent(m -> n.put("maxLagTime", m.toString()));
            }
            ArrayNode members = n.putArray("members");
            for (GroupDescription.Member m : d.members()) {
                ObjectNode mn = members.addObject();
                mn.put("memberId", m.memberId());
                put(mn, "instanceId", m.instanceId());
                mn.put("host", m.host());
                put(mn, "rack", m.rack());
                ArrayNode topics = mn.putArray("topics");
                m.topics().forEach(topics::add);
                put(mn, "joinedAt", m.joinedAt().map(Object::toString));
                ArrayNode owned = mn.putArray("partitions");
                m.owned().forEach(tp -> owned.add(tp.toString()));
                ArrayNode target = mn.putArray("target");
                m.target().forEach(tp -> target.add(tp.toString()));
            }
            ArrayNode parts = n.putArray("partitions");
            for (GroupDescription.Partition p : d.partitions()) {
                ObjectNode pn = parts.addObject();
                pn.put("topic", p.partition().topic());
                pn.put("partition", p.partition().partition());
                put(pn, "owner", p.owner());
                put(pn, "target", p.target());
                put(pn, "committed", p.committed());
                pn.put("doneAbove", p.doneAbove());
                put(pn, "logEnd", p.logEnd());
                put(pn, "lag", p.lag());
                if (p.lagTime().isPresent()) {
                    pn.put("lagSeconds", p.lagTime().get().toMillis() / 1000.0);
                } else {
                    pn.putNull("lagSeconds");
                }
                pn.put("caughtUp", p.caughtUp());
                if (p.corrupt()) {
                    pn.put("corrupt", true);
                }
                put(pn, "committedBy", p.committedBy());
                put(pn, "updatedAt", p.updatedAt().map(Object::toString));
                PartitionStatus ps = byPartition.get(p.partition());
                if (ps != null) {
                    pn.put("status", p.corrupt() ? "CORRUPT" : ps.status().name());
                    pn.put("statusReason", ps.reason());
                }
            }
            ArrayNode problems = n.putArray("problems");
            d.problems().forEach(problems::add);
            emit(n);
            return;
        }
        out.println("GROUP       " + d.group());
        out.println("STATE       " + d.state());
        out.println("GENERATION  " + d.generation());
        out.println("LEADER      " + d.leader().orElse("-"));
        out.println("ASSIGNOR    " + (d.assignor().isEmpty() ? "-" : d.assignor()));
        if (status != null) {
            out.println("STATUS      " + status.status() + " (over the last " + human(status.window())
                    + maxLagTime
                            .map(m -> ", max lag time " + LagTimeRule.format(m))
                            .orElse("") + ")");
        }
        out.println();
        Table members = new Table("MEMBER", "INSTANCE", "HOST", "RACK", "PARTITIONS");
        for (GroupDescription.Member m : d.members()) {
            members.row(
                    m.memberId(), m.instanceId().orElse(""), m.host(), m.rack().orElse(""), compact(m.owned()));
        }
        members.print(out);
        if (d.members().isEmpty()) {
            out.println("(no live members)");
        }
        out.println();
        // DONE-ABOVE only when some consumer records done offsets above its committed one (out-of-order processing).
        boolean done = d.partitions().stream().anyMatch(p -> p.doneAbove() > 0);
        List<String> headers = new ArrayList<>(List.of("TOPIC", "PARTITION", "OWNER", "COMMITTED"));
        if (done) {
            headers.add("DONE-ABOVE");
        }
        headers.addAll(List.of("LOG-END", "LAG", "LAG-TIME", "COMMITTED-BY"));
        if (status != null) {
            headers.addAll(List.of("STATUS", "WHY"));
        }
        Table parts = new Table(headers.toArray(String[]::new));
        for (GroupDescription.Partition p : d.partitions()) {
            PartitionStatus ps = byPartition.get(p.partition());
            List<Object> row = new ArrayList<>(List.of(
                    p.partition().topic(), p.partition().partition(), p.owner().orElse(""), str(p.committed())));
            if (done) {
                row.add(p.doneAbove());
            }
            row.addAll(List.of(
                    str(p.logEnd()), str(p.lag()), lagTime(p), p.committedBy().orElse("")));
            if (status != null) {
                row.add(p.corrupt() ? "CORRUPT" : ps == null ? "" : ps.status().name());
                row.add(p.corrupt() ? "offset node unreadable (see problem below)" : ps == null ? "" : ps.reason());
            }
            parts.row(row.toArray());
        }
        parts.print(out);
        if (d.partitions().isEmpty()) {
            out.println("(no partitions)");
        }
        if (d.logBounds().isEmpty()) {
            out.println();
            out.println("log-end offsets and lag unknown: pass --bootstrap to read them from Kafka");
        }
        for (String p : d.problems()) {
            out.println("problem: " + p);
        }
    }

    // ------------------------------------------------------------------ plans

    void plan(ResetPlan plan) {
        plan(plan, "one ZooKeeper transaction");
    }

    /** As {@link #plan(ResetPlan)} for a plan written elsewhere: {@code writtenIn} says how ("one Kafka ... request"). */
    void plan(ResetPlan plan, String writtenIn) {
        if (json) {
            ObjectNode n = JSON.createObjectNode();
            n.put("group", plan.group());
            n.put("operation", plan.operation());
            n.put("spec", plan.spec());
            n.put("executed", plan.executed());
            n.put("attempts", plan.attempts());
            n.put("createsGroup", plan.createsGroup());
            put(n, "logBounds", plan.logBounds());
            ArrayNode parts = n.putArray("partitions");
            for (ResetPlan.Entry e : plan.entries()) {
                ObjectNode pn = parts.addObject();
                pn.put("topic", e.partition().topic());
                pn.put("partition", e.partition().partition());
                put(pn, "current", e.current());
                put(pn, "requested", e.requested());
                put(pn, "new", e.target());
                pn.put(
                        "clamped",
                        e.clamp() == ResetPlan.Clamp.NONE
                                ? "none"
                                : e.clamp() == ResetPlan.Clamp.LOG_START ? "log-start" : "log-end");
                put(pn, "logStart", e.logStart());
                put(pn, "logEnd", e.logEnd());
                put(pn, "owner", e.owner());
                if (!e.note().isEmpty()) {
                    pn.put("note", e.note());
                }
            }
            ArrayNode notes = n.putArray("notes");
            plan.notes().forEach(notes::add);
            emit(n);
            return;
        }
        out.println((plan.executed() ? "Applied " : "Plan: ") + plan.operation() + " of group " + plan.group() + " ("
                + plan.spec() + ")" + (plan.executed() ? "" : ", dry run"));
        Table t = new Table("TOPIC", "PARTITION", "CURRENT", "NEW", "OWNER", "NOTE");
        for (ResetPlan.Entry e : plan.entries()) {
            t.row(
                    e.partition().topic(),
                    e.partition().partition(),
                    str(e.current()),
                    e.target().isPresent() ? String.valueOf(e.target().getAsLong()) : "(unchanged)",
                    e.owner().orElse(""),
                    e.note());
        }
        t.print(out);
        for (String note : plan.notes()) {
            out.println("note: " + note);
        }
        int writes = plan.writes().size();
        if (plan.executed()) {
            out.println(
                    writes == 0
                            ? "Nothing to write."
                            : "Wrote " + writes + " offset(s) in " + writtenIn
                                    + (plan.attempts() > 1
                                            ? " (planned " + plan.attempts() + " times: members committed meanwhile)"
                                            : "")
                                    + ".");
        } else {
            out.println(
                    "Dry run: nothing written. Add --execute to write " + writes + " offset(s) in " + writtenIn + ".");
        }
    }

    void deleted(DeleteResult r) {
        if (json) {
            emit(deleteJson(r, false));
            return;
        }
        if (r.what().equals("group")) {
            out.println("Deleted group " + r.group() + ": " + r.nodesDeleted() + " node(s), "
                    + r.offsetsDeleted().size() + " committed offset(s), in one ZooKeeper transaction.");
        } else { // the nodes stay, cleared, so that every fenced write prepared before the delete fails
            out.println("Cleared " + r.what() + " of group " + r.group() + ": " + r.nodesDeleted()
                    + " offset node(s) (kept, with no offset), "
                    + r.offsetsDeleted().size()
                    + " committed offset(s) removed, in one ZooKeeper transaction.");
        }
        if (!r.liveMembers().isEmpty()) {
            out.println("note: forced while members were live: " + String.join(", ", r.liveMembers()));
        }
    }

    /** A delete's JSON: {@code deleted} (or, for a dry run, {@code dryRun} and {@code wouldDelete}), nodes, offsets. */
    private static ObjectNode deleteJson(DeleteResult r, boolean dryRun) {
        ObjectNode n = JSON.createObjectNode();
        n.put("group", r.group());
        if (dryRun) {
            n.put("dryRun", true);
        }
        n.put(dryRun ? "wouldDelete" : "deleted", r.what());
        n.put("nodes", r.nodesDeleted());
        ObjectNode offsets = n.putObject("offsets");
        r.offsetsDeleted().forEach((tp, o) -> offsets.put(tp.toString(), o));
        ArrayNode live = n.putArray("liveMembers");
        r.liveMembers().forEach(live::add);
        return n;
    }

    /** A group delete's dry run: what {@code --execute} would delete now. */
    void wouldDelete(DeleteResult r) {
        if (json) {
            emit(deleteJson(r, true));
            return;
        }
        out.println("Would delete group " + r.group() + ": " + r.nodesDeleted() + " node(s), "
                + r.offsetsDeleted().size() + " committed offset(s), in one ZooKeeper transaction.");
        r.offsetsDeleted().forEach((tp, o) -> out.println("  " + tp + " committed " + o));
        if (!r.liveMembers().isEmpty()) {
            out.println("note: forced: live members " + String.join(", ", r.liveMembers())
                    + " would lose their partitions");
        }
        out.println("Dry run: nothing deleted. Add --execute to delete.");
    }

    // ------------------------------------------------------------------ helpers

    /** "orders:0,1 payments:3". */
    static String compact(Collection<TopicPartition> partitions) {
        Map<String, SortedSet<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(
                tp -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition()));
        StringBuilder sb = new StringBuilder();
        byTopic.forEach((t, ps) -> {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(t).append(':');
            StringBuilder list = new StringBuilder();
            ps.forEach(p -> list.append(list.length() == 0 ? "" : ",").append(p));
            sb.append(list);
        });
        return sb.toString();
    }

    /** "42s", "1h2m3s", "0s" when caught up, "-" (empty) when unknown. */
    static String lagTime(GroupDescription.Partition p) {
        return p.lagTime().map(LagTimeRule::format).orElse("");
    }

    static String str(OptionalLong v) {
        return v.isPresent() ? String.valueOf(v.getAsLong()) : "";
    }

    private static void put(ObjectNode n, String field, Optional<String> v) {
        if (v.isPresent()) {
            n.put(field, v.get());
        } else {
            n.putNull(field);
        }
    }

    private static void put(ObjectNode n, String field, OptionalLong v) {
        if (v.isPresent()) {
            n.put(field, v.getAsLong());
        } else {
            n.putNull(field);
        }
    }

    private void emit(Object node) {
        try {
            out.println(JSON.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String human(Duration d) {
        return d.toString().substring(2).toLowerCase();
    }
}
