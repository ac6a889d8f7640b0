#!/bin/bash
# 2026-12-03 08:36:03-09:28:33 UTC, main at 2106f58, nothing else running; the jar was built and copied before the run,
# and nothing was built during it. Host steal over the 30 s before it: 0.2 %; over the run: 3.0 % (the console's last lines).
mvn -q -pl benchmarks -am package -DskipTests && cp benchmarks/target/benchmarks.jar /tmp/r18.jar
java -Xms1g -Xmx1g -cp /tmp/r18.jar io.groupkeeper.benchmarks.rebalance.SideBySideMain --out /tmp/r18/rebalance-sidebyside-repeat-1 \
  > /tmp/r18/console.txt 2>&1
