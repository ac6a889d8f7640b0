/**
 * groupkeeper's core: the domain, the assignors, the member and rebalancer state machines and the store SPI. Exports
 * the API and SPI packages only; {@code io.groupkeeper.internal} is the implementation and is not exported.
 */
module io.groupkeeper.core {
    requires org.slf4j;
    // Optional: MicrometerGroupMetrics, when the application has Micrometer (which then requires micrometer.core itself,
    // to build the MeterRegistry it passes). Not transitive: "static transitive" makes every module that reads core
    // need micrometer.core at compile time ("module not found: micrometer.core" in testkit).
    requires static micrometer.core;

    exports io.groupkeeper;
    exports io.groupkeeper.assignor;
    exports io.groupkeeper.metrics;
    exports io.groupkeeper.spi;
    exports io.groupkeeper.status;
}
