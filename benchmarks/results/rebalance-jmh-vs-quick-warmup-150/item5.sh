#!/bin/bash
# Issue 19 item 5: JMH join against the side-by-side scale-out, ZooKeeper part, with and without the broker + producer
cd /tmp/ab/item5
for round in 1 2; do
  echo "=== round $round JMH $(date +%T)"
  java -jar ../fix.jar RebalanceBenchmark -p subject=zookeeper -p scenario=join -p brokerLoad=true,false -f 1 \
    -rf json -rff jmh-$round.json > jmh-$round.console.txt 2>&1
  grep -E '^RebalanceBenchmark|p0.50|Benchmark ' jmh-$round.console.txt | tail -12
  echo "=== round $round side-by-side with the broker $(date +%T)"
  java -Xms1g -Xmx1g -cp ../fix.jar io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --scenarios a \
    --settings kafka-classic-hb20 --reps 1 --gk-reps 30 --gk-warmups 150 --max-warmups 150 --gkk-reps 1 --gkk-warmups 1 \
    --idle-ms 1000 --out sbs-broker-$round > sbs-broker-$round.console.txt 2>&1
  grep -E '^groupkeeper.*scale-out' sbs-broker-$round.console.txt | cut -c1-110
  echo "=== round $round side-by-side --no-kafka $(date +%T)"
  java -Xms1g -Xmx1g -cp ../fix.jar io.groupkeeper.benchmarks.rebalance.SideBySideMain --quick --no-kafka --scenarios a \
    --gk-reps 30 --gk-warmups 150 --max-warmups 150 --idle-ms 1000 --out sbs-nokafka-$round > sbs-nokafka-$round.console.txt 2>&1
  grep -E '^groupkeeper.*scale-out' sbs-nokafka-$round.console.txt | cut -c1-110
done
echo "=== done $(date +%T)"
