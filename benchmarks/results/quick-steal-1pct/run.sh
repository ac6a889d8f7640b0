#!/bin/bash
# 2026-12-03 07:13-07:18 UTC, main at cfd3c84, nothing else running; jar built and copied before the run.
J="java -Xms1g -Xmx1g -cp /tmp/cfd.jar"
$J io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --out /tmp/m20/quick > /tmp/m20/console.txt 2>&1
