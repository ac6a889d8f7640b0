package io.groupkeeper.testkit.sim;

/** Prints the shrunk schedule and trace of one seed: {@code java ... SimReplay <seed>} (a debugging aid). */
final class SimReplay {

    private SimReplay() {}

    public static void main(String[] args) {
        ch.qos.logback.classic.Logger gk =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.groupkeeper");
        gk.setLevel(ch.qos.logback.classic.Level.OFF);
        Simulation.Result r = Simulation.run(Long.parseLong(args[0]), SimulationTest.FAULTS);
        if (r.failed()) {
            r = Shrinker.shrink(r);
        }
        // The shortest schedule once more, with the members' own logging (-Dlevel=INFO).
        gk.setLevel(ch.qos.logback.classic.Level.toLevel(System.getProperty("level", "OFF")));
        r = new Simulation(r.seed(), r.plan()).silentCuts(r.silentCuts()).run();
        r.plan().forEach(System.out::println);
        System.out.println(r.violations());
        System.out.println(r.tail());
    }
}
