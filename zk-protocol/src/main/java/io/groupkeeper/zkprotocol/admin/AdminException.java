package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.GroupKeeperException;
import java.util.Optional;

/**
 * An admin operation was refused or failed; the message is one line an operator can act on (it names the group,
 * topic, partition, node or input line concerned). When thrown, nothing was written.
 *
 * <p>Where the operator can do something about it, the exception names the {@link #remedy()} apart from the {@link
 * #detail()}: the message says it in the library's words ("delete with force"), and a front end such as the CLI says
 * it in its own ("use --force").
 */
public class AdminException extends GroupKeeperException {

    private static final long serialVersionUID = 1L;

    /** What the operator can do about a refusal. */
    public enum Remedy {
        /** The operation is refused while members are live; it may be forced. */
        FORCE(", or delete with force"),
        /** The admin has no log bounds, which the operation needs. */
        LOG_BOUNDS(": this admin has no log bounds"),
        /** A topic unknown here that the log (with log bounds) might know. */
        LOOK_UP_IN_LOG(" (log bounds would look it up in the log)"),
        /** A partition count unknown here that the log (with log bounds) might know. */
        COUNT_FROM_LOG(" (log bounds would tell the partition count)"),
        /** The partition count of the {@linkplain #subject() topic} is unknown: name its partitions. */
        NAME_PARTITIONS("; name its partitions"),
        /** As {@link #NAME_PARTITIONS}, or give the admin log bounds. */
        NAME_PARTITIONS_OR_LOG_BOUNDS("; name its partitions, or give log bounds"),
        /** A plan too large for one transaction; select fewer partitions per run. */
        SELECT_FEWER(": select fewer topics or partitions per run"),
        /** A group too large to delete in one transaction; delete its offsets topic by topic first. */
        DELETE_OFFSETS_FIRST(": delete its offsets topic by topic first"),
        /** No source offsets where they were looked for; check where. */
        CHECK_SOURCE_LOCATION(" (check the root path and the spout id)"),
        /** ZooKeeper refused for want of credentials: the nodes have ACLs. */
        CREDENTIALS(
                ": not authorized (the group's nodes have ACLs); pass the digest credentials they were created with");

        private final String words;

        Remedy(String words) {
            this.words = words;
        }

        /** The library's words for it, as appended to the detail. */
        public String words() {
            return words;
        }
    }

    private final String detail;
    private final Remedy remedy;
    private final String subject;

    public AdminException(String message) {
        this(message, (Throwable) null);
    }

    public AdminException(String message, Throwable cause) {
        super(message, cause);
        this.detail = message;
        this.remedy = null;
        this.subject = null;
    }

    /**
     * A refusal with a remedy; {@code subject} (nullable) is what the remedy concerns, e.g. the topic whose
     * partitions must be named.
     */
    public AdminException(String detail, Remedy remedy, String subject) {
        this(detail, remedy, subject, null);
    }

    /** As {@link #AdminException(String, Remedy, String)}, with its cause. */
    public AdminException(String detail, Remedy remedy, String subject, Throwable cause) {
        super(detail + remedy.words(), cause);
        this.detail = detail;
        this.remedy = remedy;
        this.subject = subject;
    }

    /** The message without the remedy. */
    public String detail() {
        return detail;
    }

    public Optional<Remedy> remedy() {
        return Optional.ofNullable(remedy);
    }

    /** What the remedy concerns (e.g. a topic), if anything. */
    public Optional<String> subject() {
        return Optional.ofNullable(subject);
    }
}
