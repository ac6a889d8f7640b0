#!/bin/bash
# Bracket with host CPU recorded: --quick, JMH join 3 forks, --quick; main at 082311f (HostCpu from ec1ddf4), nothing else running.
cd /tmp/m19   # results copied here from /tmp/m19
J="java -Xms1g -Xmx1g -cp /tmp/new.jar"
date -u +%FT%T > times.txt; uptime >> times.txt; head -1 /proc/stat >> times.txt
$J io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/m19/quick-before > quick-before-console.txt 2>&1
date -u +%FT%T >> times.txt; head -1 /proc/stat >> times.txt
java -jar /tmp/new.jar RebalanceBenchmark -f 3 -p scenario=join -rf json -rff /tmp/m19/jmh.json > jmh-console.txt 2>&1
date -u +%FT%T >> times.txt; head -1 /proc/stat >> times.txt
$J io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/m19/quick-after > quick-after-console.txt 2>&1
date -u +%FT%T >> times.txt; uptime >> times.txt; head -1 /proc/stat >> times.txt
echo done >> times.txt
