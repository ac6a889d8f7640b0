package io.groupkeeper.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.groupkeeper.embedded.ServerLogs;
import org.slf4j.LoggerFactory;

/** Adjusts the CLI's logback configuration (quiet by default: see logback.xml). */
final class Logging {

    private Logging() {}

    /** The embedded servers' own loggers at ERROR: their start-up WARNs are expected and would only worry. */
    static void quietServers() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            for (String name : ServerLogs.SERVER_LOGGERS) {
                if (ctx.getLogger(name).getLevel() == null) {
                    ctx.getLogger(name).setLevel(Level.ERROR);
                }
            }
        }
    }

    /** Everything at INFO (sandbox --verbose). */
    static void verbose() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx) {
            for (String name :
                    new String[] {"ROOT", "org.apache.zookeeper", "org.apache.curator", "org.apache.kafka", "kafka"}) {
                ctx.getLogger(name).setLevel(Level.INFO);
            }
        }
    }
}
