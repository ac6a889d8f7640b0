package io.groupkeeper.zookeeper.admin;

import io.groupkeeper.GroupKeeperException;

/**
 * An admin operation was refused or failed; the message is one line an operator can act on (it names the group,
 * topic, partition, node or input line concerned). When thrown, nothing was written.
 */
public class AdminException extends GroupKeeperException {

    private static final long serialVersionUID = 1L;

    public AdminException(String message) {
        super(message);
    }

    public AdminException(String message, Throwable cause) {
        super(message, cause);
    }
}
