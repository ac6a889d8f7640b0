#!/bin/bash
# Same-evening bracket: --quick, JMH join+leave 3 forks, --quick; main at 48561a9, nothing else running.
cd /tmp/m18   # results copied here from /tmp/m18
J="java -Xms1g -Xmx1g -cp /tmp/base.jar"
date -u +%FT%T > times.txt; uptime >> times.txt
$J io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/m18/quick-before > quick-before-console.txt 2>&1
date -u +%FT%T >> times.txt
java -jar /tmp/base.jar RebalanceBenchmark -f 3 -p scenario=join,leave -rf json -rff /tmp/m18/jmh.json > jmh-console.txt 2>&1
date -u +%FT%T >> times.txt
$J io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/m18/quick-after > quick-after-console.txt 2>&1
date -u +%FT%T >> times.txt; uptime >> times.txt
echo done >> times.txt
