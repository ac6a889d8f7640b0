#!/usr/bin/env bash
# Exactly once into Kafka through kill -9 and a pause past the session timeout, counted by Kafka's own tools
# (docs/exactly-once.md, "Into Kafka"). Starts its own in-process ZooKeeper + Kafka (EmbeddedServersMain), three
# `transform` processes reading IN (4 partitions) into OUT (1 partition), producers writing IN meanwhile; kills one with
# SIGKILL, stops another with SIGSTOP past its session timeout and continues it, then reads OUT from the beginning with
# Kafka's console consumer (--isolation-level read_committed) and compares it with IN's log ends (GetOffsetShell).
#
#   mvn -B -q -pl examples -am package -DskipTests        # once: examples/target/groupkeeper-examples.jar + lib/
#   examples/scripts/transform-kill-and-pause.sh          # ~2 min; exit 0 only when every input offset is in OUT once
#
# Environment (defaults): PRODUCERS (8) × RECORDS_PER_PRODUCER (2500) inputs, SESSION_TIMEOUT_MS (4000),
# WORK (a new temporary directory: logs, the console consumer's output; kept).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAR=$ROOT/examples/target/groupkeeper-examples.jar
[[ -f $JAR && -d $ROOT/examples/target/lib ]] || {
    echo "error: $JAR missing; build it: mvn -B -q -pl examples -am package -DskipTests" >&2; exit 2; }
CP="$JAR:$ROOT/examples/target/lib/*"
PRODUCERS=${PRODUCERS:-8}
RECORDS_PER_PRODUCER=${RECORDS_PER_PRODUCER:-2500}
SESSION_TIMEOUT_MS=${SESSION_TIMEOUT_MS:-4000}
WORK=${WORK:-$(mktemp -d /tmp/transform-kill-and-pause.XXXXXX)}
mkdir -p "$WORK"
GROUP=transform-evidence

STARTED=()   # every process this script started, by pid; only these are stopped on exit
cleanup() {
    for pid in "${STARTED[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${STARTED[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# Waits until FILE has a line matching PATTERN, at most SECONDS.
wait_for() {
    local file=$1 pattern=$2 seconds=$3 start=$SECONDS
    until grep -q -- "$pattern" "$file" 2>/dev/null; do
        (( SECONDS - start < seconds )) || { echo "error: no '$pattern' in $file after ${seconds}s" >&2; exit 1; }
        sleep 0.2
    done
}

tool() { java -cp "$CP" "$@"; }

say "work directory $WORK; load: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "$CP" io.groupkeeper.embedded.EmbeddedServersMain > "$WORK/servers.log" 2>&1 &
SERVERS=$!
STARTED+=("$SERVERS")
wait_for "$WORK/servers.log" '^bootstrap=' 120
ZK=$(sed -n 's/^zk=//p' "$WORK/servers.log")
B=$(sed -n 's/^bootstrap=//p' "$WORK/servers.log")
say "servers: zk=$ZK bootstrap=$B"

tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --create --topic IN --partitions 4 > /dev/null
tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$B" --create --topic OUT --partitions 1 > /dev/null

declare -A MEMBER
for n in a b c; do
    java -jar "$JAR" transform --zk "$ZK" --bootstrap "$B" --group "$GROUP" --from IN --to OUT \
        --session-timeout-ms "$SESSION_TIMEOUT_MS" --commit-interval-ms 200 -X max.poll.records=100 \
        > "$WORK/transform-$n.out" 2> "$WORK/transform-$n.log" &
    MEMBER[$n]=$!
    STARTED+=("${MEMBER[$n]}")
    wait_for "$WORK/transform-$n.log" 'transforming' 120   # one at a time: a JVM start competes for the CPUs
done
say "transform a=${MEMBER[a]} b=${MEMBER[b]} c=${MEMBER[c]} (session ${SESSION_TIMEOUT_MS} ms, commit 200 ms)"

PRODUCER_PIDS=()
for i in $(seq 1 "$PRODUCERS"); do
    java -jar "$JAR" produce --bootstrap "$B" --topic IN --count "$RECORDS_PER_PRODUCER" --interval-ms 2 \
        --prefix "p$i" > /dev/null 2> "$WORK/produce-$i.log" &
    PRODUCER_PIDS+=($!)
    STARTED+=($!)
done
say "$PRODUCERS producers × $RECORDS_PER_PRODUCER records into IN"

sleep 10
kill -KILL "${MEMBER[a]}"
wait "${MEMBER[a]}" 2>/dev/null || true   # reaped here, so the shell does not report the kill later
say "kill -9 a (${MEMBER[a]})"
sleep 8
kill -STOP "${MEMBER[b]}"
say "kill -STOP b (${MEMBER[b]})"
sleep $(( SESSION_TIMEOUT_MS * 3 / 1000 ))
kill -CONT "${MEMBER[b]}"
say "kill -CONT b after $(( SESSION_TIMEOUT_MS * 3 / 1000 )) s (3 session timeouts)"

for pid in "${PRODUCER_PIDS[@]}"; do wait "$pid"; done
say "producers done"

# Until the group's offsets of record (in Kafka, committed in the output transactions) reach IN's log ends.
lag() {
    tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$B" --describe \
        --group "$GROUP" 2>/dev/null | awk '$2 == "IN" && $6 ~ /^[0-9]+$/ { rows++; lag += $6 }
                                           END { print (rows == 4 ? lag : "unknown") }'
}
start=$SECONDS
until [[ $(lag) == 0 ]]; do
    (( SECONDS - start < 120 )) || { echo "error: the group's lag did not reach 0 within 120 s" >&2; exit 1; }
    sleep 1
done
say "group lag 0; SIGTERM b and c"
kill -TERM "${MEMBER[b]}" "${MEMBER[c]}"
wait "${MEMBER[b]}" "${MEMBER[c]}" || true

tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$B" --topic IN > "$WORK/in-ends.txt"
tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$B" --topic OUT --from-beginning \
    --isolation-level read_committed --timeout-ms 15000 > "$WORK/out.txt" 2> "$WORK/console-consumer.log" || true

# Every input offset below its log end, and every output's (partition, offset), as "P O" lines.
awk -F: '{ for (o = 0; o < $3; o++) print $2, o }' "$WORK/in-ends.txt" | sort > "$WORK/expected.txt"
sed -n 's/.*"partition":\([0-9]*\),"offset":\([0-9]*\).*/\1 \2/p' "$WORK/out.txt" | sort > "$WORK/seen.txt"
inputs=$(wc -l < "$WORK/expected.txt")
outputs=$(wc -l < "$WORK/out.txt")
distinct=$(sort -u "$WORK/seen.txt" | wc -l)
duplicated=$(( $(wc -l < "$WORK/seen.txt") - distinct ))
missing=$(sort -u "$WORK/seen.txt" | comm -23 "$WORK/expected.txt" - | wc -l)
unexpected=$(sort -u "$WORK/seen.txt" | comm -13 "$WORK/expected.txt" - | wc -l)

echo
echo "IN log ends: $(tr '\n' ' ' < "$WORK/in-ends.txt")= $inputs inputs"
echo "console consumer: $(grep -o 'Processed a total of [0-9]* messages' "$WORK/console-consumer.log" || echo 'no total')"
echo "OUT read_committed: $outputs records, $distinct distinct, $duplicated duplicated; $missing input offsets missing, $unexpected records for no input offset"
echo "b after SIGCONT: $(grep -E 'fenced|in doubt' "$WORK/transform-b.log" | sed 's/^[0-9:.]* //' | tr '\n' ' ')"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); logs in $WORK"
if (( outputs == inputs && distinct == inputs && duplicated == 0 && missing == 0 && unexpected == 0 && inputs == PRODUCERS * RECORDS_PER_PRODUCER )); then
    echo "RESULT: every input offset in OUT exactly once"
else
    echo "RESULT: NOT exactly once"
    exit 1
fi
