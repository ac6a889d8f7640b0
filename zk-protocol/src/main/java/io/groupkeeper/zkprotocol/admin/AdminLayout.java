package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.TopicPartition;
import io.groupkeeper.zkprotocol.internal.ZkPaths;

/**
 * The node layout as an admin sees it (docs/zk-layout.md), relative to the store's namespace: the paths it reads and
 * writes. The store's one definition of every path ({@code ZkPaths}) answers each.
 */
public final class AdminLayout {

    /** The topic registry's folder. */
    public static final String TOPICS = ZkPaths.TOPICS;
    /** The groups' folder. */
    public static final String GROUPS = ZkPaths.GROUPS;

    private AdminLayout() {}

    public static String topic(String topic) {
        return ZkPaths.topic(topic);
    }

    public static String group(String group) {
        return ZkPaths.group(group);
    }

    public static String members(String group) {
        return ZkPaths.members(group);
    }

    public static String member(String group, String memberId) {
        return ZkPaths.member(group, memberId);
    }

    public static String leader(String group) {
        return ZkPaths.leader(group);
    }

    public static String assignment(String group) {
        return ZkPaths.assignment(group);
    }

    public static String target(String group, String memberId) {
        return ZkPaths.target(group, memberId);
    }

    public static String owners(String group) {
        return ZkPaths.owners(group);
    }

    public static String ownersOfTopic(String group, String topic) {
        return ZkPaths.ownersOfTopic(group, topic);
    }

    public static String owner(String group, TopicPartition tp) {
        return ZkPaths.owner(group, tp);
    }

    public static String offsets(String group) {
        return ZkPaths.offsets(group);
    }

    public static String offsetsOfTopic(String group, String topic) {
        return ZkPaths.offsetsOfTopic(group, topic);
    }

    public static String offset(String group, TopicPartition tp) {
        return ZkPaths.offset(group, tp);
    }
}
