package io.groupkeeper.zkprotocol.admin;

import io.groupkeeper.zkprotocol.ZkPort;
import java.util.Objects;

/**
 * A read-only view of a ZooKeeper ensemble that another system wrote (Storm, Kafka's old consumer), for the migrate
 * sources ({@link StormKafkaOffsets}, {@link KafkaZkOffsets}): paths are as that system wrote them, relative to the
 * port's namespace (none, for a connection of zk-store's {@code ZooKeeperAdmin.source}).
 */
public final class ZkSource implements AutoCloseable {

    private final String connectString;
    private final ZkReader reader;
    private final Runnable onClose;

    private ZkSource(String connectString, ZkPort port, Runnable onClose) {
        this.connectString = Objects.requireNonNull(connectString, "connectString");
        this.reader = new ZkReader(Objects.requireNonNull(port, "port"));
        this.onClose = Objects.requireNonNull(onClose, "onClose");
    }

    /**
     * A source read through {@code port}; {@code connectString} names it in messages and origins; {@code onClose} runs
     * on {@link #close()} (closes the connection when the caller opened it for this source).
     */
    public static ZkSource over(ZkPort port, String connectString, Runnable onClose) {
        return new ZkSource(connectString, port, onClose);
    }

    public String connectString() {
        return connectString;
    }

    ZkReader reader() {
        return reader;
    }

    @Override
    public void close() {
        onClose.run();
    }
}
