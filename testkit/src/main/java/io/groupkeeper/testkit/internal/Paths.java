package io.groupkeeper.testkit.internal;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;

/**
 * The node layout of docs/zk-layout.md, relative to the store's namespace: the same paths as the ZooKeeper store's
 * {@code ZkPaths} (testkit cannot depend on zk-store), so that a test can hand-edit the same path on either store.
 */
public final class Paths {

    public static final String TOPICS = "/topics";
    public static final String GROUPS = "/groups";

    private Paths() {
    }

    public static String topic(String topic) {
        return TOPICS + "/" + Names.requireValid("topic", topic);
    }

    public static String group(String group) {
        return GROUPS + "/" + Names.requireValid("group id", group);
    }

    public static String members(String group) {
        return group(group) + "/members";
    }

    public static String member(String group, String memberId) {
        return members(group) + "/" + Names.requireValid("member id", memberId);
    }

    public static String leader(String group) {
        return group(group) + "/leader";
    }

    public static String assignment(String group) {
        return group(group) + "/assignment";
    }

    public static String target(String group, String memberId) {
        return assignment(group) + "/" + Names.requireValid("member id", memberId);
    }

    public static String owners(String group) {
        return group(group) + "/owners";
    }

    public static String ownersOfTopic(String group, String topic) {
        return owners(group) + "/" + Names.requireValid("topic", topic);
    }

    public static String owner(String group, TopicPartition tp) {
        return ownersOfTopic(group, tp.topic()) + "/" + tp.partition();
    }

    public static String offsets(String group) {
        return group(group) + "/offsets";
    }

    public static String offsetsOfTopic(String group, String topic) {
        return offsets(group) + "/" + Names.requireValid("topic", topic);
    }

    public static String offset(String group, TopicPartition tp) {
        return offsetsOfTopic(group, tp.topic()) + "/" + tp.partition();
    }

    /** The parent of an absolute path ({@code /} for a top-level node). */
    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** The last segment of an absolute path. */
    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** {@code parent + "/" + child}, without doubling the root's slash. */
    static String child(String parent, String child) {
        return "/".equals(parent) ? "/" + child : parent + "/" + child;
    }
}
