package io.groupkeeper.spi;

import java.util.Map;
import java.util.Optional;

/** Topics registered in the store itself, for partitioned work that does not come from Kafka. */
public interface TopicRegistry extends TopicMetadataSource {

    /** Creates the topic, or raises its partition count; lowering a partition count is refused. */
    void ensureTopic(String topic, int partitions);

    Optional<Integer> partitionCount(String topic);

    Map<String, Integer> list();

    void delete(String topic);
}
