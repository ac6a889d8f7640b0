package io.groupkeeper.zkprotocol.internal;

import io.groupkeeper.Names;
import io.groupkeeper.TopicPartition;

/**
 * The ZooKeeper layout, relative to the store's namespace (see docs/zk-layout.md). The single place that spells
 * paths, so the CLI, the admin API and the protocol cannot disagree.
 */
public final class ZkPaths {

    public static final String TOPICS = "/topics";
    public static final String GROUPS = "/groups";

    private ZkPaths() {}

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

    /**
     * The fences folder: per partition a persistent node whose version every claim moves (its body names the last
     * claimant), so that commits and releases can be fenced against a change of hands without the claim reading or
     * rewriting the offset node first.
     */
    public static String fences(String group) {
        return group(group) + "/fences";
    }

    public static String fencesOfTopic(String group, String topic) {
        return fences(group) + "/" + Names.requireValid("topic", topic);
    }

    public static String fence(String group, TopicPartition tp) {
        return fencesOfTopic(group, tp.topic()) + "/" + tp.partition();
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
}
