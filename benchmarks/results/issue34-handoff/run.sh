#!/bin/sh
# Issue 34 item 7: the side-by-side --quick (scale-out) on e1e11c8 (claim after a read) and 3f35dfa (the claim with its
# read pipelined), back to back in one session, nice'd, 2026-12-04 18:46-18:56 UTC, while four other engineers' builds
# shared the 2 cores (load average 13-19, host busy 100 %).
set -e
for v in e1e11c8 3f35dfa; do
  rm -rf /tmp/gk-$v && mkdir -p /tmp/gk-$v && git archive $v | tar -x -C /tmp/gk-$v
  (cd /tmp/gk-$v && mvn -B -q -pl benchmarks -am package -DskipTests)
done
for v in e1e11c8 3f35dfa; do
  (cd /tmp/gk-$v && nice -n 10 java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar \
    io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/gk-$v/quick)
done
