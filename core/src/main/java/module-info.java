/**
 * groupkeeper's core: the domain, the assignors, the member and rebalancer state machines and the store SPI. Exports
 * the API and SPI packages; {@code io.groupkeeper.internal} is the implementation and is not exported. The protocol
 * between core and the store ({@code io.groupkeeper.spi.internal}: {@code GroupStore}, claims, commits, leases,
 * member and offset snapshots) is exported only to the store (zk-protocol) and the two modules that run it (zk-store,
 * an automatic module, and testkit). The logging context ({@code io.groupkeeper.log.internal}: the MDC keys and the
 * helper that sets them) is exported only to the Kafka adapter (an automatic module), which names its lines the same way.
 */
module io.groupkeeper.core {
    requires org.slf4j;
    // Optional: MicrometerGroupMetrics, when the application has Micrometer (which then requires micrometer.core
    // itself,
    // to build the MeterRegistry it passes). Not transitive: "static transitive" makes every module that reads core
    // need micrometer.core at compile time ("module not found: micrometer.core" in testkit).
    requires static micrometer.core;

    exports io.groupkeeper;
    exports io.groupkeeper.assignor;
    exports io.groupkeeper.metrics;
    exports io.groupkeeper.spi;
    exports io.groupkeeper.spi.internal to
            io.groupkeeper.zkprotocol,
            io.groupkeeper.zookeeper,
            io.groupkeeper.testkit;
    exports io.groupkeeper.status;
    exports io.groupkeeper.log.internal to
            io.groupkeeper.kafka;
}
