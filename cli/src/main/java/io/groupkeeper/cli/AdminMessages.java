package io.groupkeeper.cli;

import io.groupkeeper.zkprotocol.admin.AdminException;

/**
 * Says an {@link AdminException}'s remedy in the CLI's words: the library names what the operator can do ("delete
 * with force"), the CLI names the flag that does it ("use --force").
 */
final class AdminMessages {

    private AdminMessages() {}

    /** The exception's message, its remedy said with the CLI's flags. */
    static String of(AdminException e) {
        if (e.remedy().isEmpty()) {
            return e.getMessage();
        }
        String topic = e.subject().orElse("T");
        String words = switch (e.remedy().get()) {
            case FORCE -> ", or use --force";
            case LOG_BOUNDS -> ": pass --bootstrap";
            case LOOK_UP_IN_LOG -> " (pass --bootstrap to look it up in Kafka)";
            case COUNT_FROM_LOG -> " (pass --bootstrap)";
            case NAME_PARTITIONS -> "; name them: --topic " + topic + ":0,1,...";
            case NAME_PARTITIONS_OR_LOG_BOUNDS -> "; pass --bootstrap, or name them: --topic " + topic + ":0,1,...";
            case SELECT_FEWER -> ": select fewer topics or partitions (--topic T or T:0,1,...) per run";
            case DELETE_OFFSETS_FIRST -> ": delete its offsets topic by topic first (offsets delete --topic)";
            case CHECK_SOURCE_LOCATION -> " (check --zk-root and --spout-id)";
            case CREDENTIALS ->
                ": not authorized (the group's nodes have ACLs): pass --zk-digest USER:PASSWORD (or set "
                        + "GROUPKEEPER_ZK_DIGEST)";
        };
        return e.detail() + words;
    }
}
