package io.groupkeeper.zkprotocol.admin.violation;

/** Deliberate violation: an admin class decodes a node with the store's internal codec instead of its own surface. */
public class AdminUsesStoreInternal {
    public long generation(byte[] data) {
        return io.groupkeeper.zkprotocol.internal.NodeCodec.owner("/x", data).generation();
    }
}
