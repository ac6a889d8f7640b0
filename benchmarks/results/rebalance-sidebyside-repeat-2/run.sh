#!/bin/bash
# 2026-12-03 09:47:37-10:40:40 UTC, main at 56aeb3e (the code of 2106f58: docs only since), nothing else running; the
# jar of run 18 (built at 2106f58 and copied before it), nothing built during the run. Host steal over 20 s of two
# busy loops just before it: 0.7 %; over the run: 3.4 % (the console's last lines).
java -Xms1g -Xmx1g -cp /tmp/r18.jar io.groupkeeper.benchmarks.rebalance.SideBySideMain --out /tmp/r19/rebalance-sidebyside-repeat-2 \
  > /tmp/r19/console.txt 2>&1
