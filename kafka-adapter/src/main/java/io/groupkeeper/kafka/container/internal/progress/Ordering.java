package io.groupkeeper.kafka.container.internal.progress;

/**
 * Which records of a partition may be processed at the same time. Each ordering is only a different <em>lane</em> for
 * a record: records of one lane run one at a time, in offset order; different lanes run in parallel. One machinery
 * ({@link PartitionProgress}) serves all three.
 */
public enum Ordering {
    /** One lane per partition: one record at a time, in offset order (the container's behaviour today). */
    PARTITION,
    /** One lane per key: a key's records one at a time, in offset order; different keys in parallel. */
    KEY,
    /** One lane per record: no order at all. */
    UNORDERED;

    private static final Object PARTITION_LANE = new Object() {
        @Override
        public String toString() {
            return "partition";
        }
    };
    private static final Object NULL_KEY_LANE = new Object() {
        @Override
        public String toString() {
            return "null key";
        }
    };

    /**
     * The lane of a record. {@code key} must have value equality (a {@code byte[]} key is wrapped, for example in a
     * {@code ByteBuffer}, by the caller). Records without a key share one lane under {@link #KEY}: in offset order.
     */
    public Object lane(long offset, Object key) {
        return switch (this) {
            case PARTITION -> PARTITION_LANE;
            case KEY -> key == null ? NULL_KEY_LANE : key;
            case UNORDERED -> offset;
        };
    }
}
