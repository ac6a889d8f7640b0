package io.groupkeeper.examples;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar groupkeeper-examples.jar} — with no arguments, starts in-process ZooKeeper and Kafka and replays the
 * founding story end to end; {@code --zk Z --bootstrap B} replays it against running servers. Subcommands start
 * single producers and consumers by hand, and a non-Kafka example.
 */
@Command(
        name = "groupkeeper-examples",
        mixinStandardHelpOptions = true,
        version = "groupkeeper examples 0.1.0",
        description = {
            "Replays groupkeeper's founding story on real Kafka under ZooKeeper coordination, printing what happens.",
            "With no options it starts ZooKeeper and Kafka in this process; exit code 0 only when every step held."
        },
        subcommands = {
            ProduceCommand.class,
            ConsumeCommand.class,
            ShardedBatchExample.class,
            ZombieCommand.class,
            JdbcSinkCommand.class,
            TransformCommand.class,
            io.groupkeeper.examples.springswitch.SwitchFromSpringCommand.class
        },
        footer = {
            "",
            "Examples:",
            "  groupkeeper-examples                                   the story on in-process servers",
            "  groupkeeper-examples --zk 127.0.0.1:2181 --bootstrap 127.0.0.1:9092",
            "  groupkeeper-examples produce --bootstrap B --topic orders --count 100",
            "  groupkeeper-examples consume --zk Z --bootstrap B --group billing --topic orders",
            "  groupkeeper-examples batch                             N shards of a batch job, no Kafka",
            "  groupkeeper-examples zombie                            a cut-off member's late write refused by token",
            "  groupkeeper-examples jdbc-sink --zk Z --bootstrap B --group G --topic T --jdbc-url URL",
            "                                                         exactly once into a database, fenced by token",
            "  groupkeeper-examples transform --zk Z --bootstrap B --group G --from IN --to OUT",
            "                                                         exactly once into Kafka, in transactions",
            "  groupkeeper-examples switch-from-spring               a @KafkaListener service moved to the starter",
            "                                                         while records keep coming: redelivered, lost"
        })
public final class Main implements Callable<Integer> {

    @Option(names = "--zk", paramLabel = "HOST:PORT", description = "ZooKeeper to use instead of an in-process one")
    String zk;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka to use instead of an in-process one")
    String bootstrap;

    @Option(
            names = "--namespace",
            defaultValue = "groupkeeper",
            description = "ZooKeeper root of groupkeeper's nodes (default: ${DEFAULT-VALUE})")
    String namespace;

    @Override
    public Integer call() {
        if ((zk == null) != (bootstrap == null)) {
            System.err.println("error: --zk and --bootstrap go together (or give neither for in-process servers)");
            return 2;
        }
        return new FoundingStory(System.out, zk, bootstrap, namespace).run() ? 0 : 1;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
