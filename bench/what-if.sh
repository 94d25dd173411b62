#!/usr/bin/env bash
# what-if replay speed and fidelity: a day of generated call records (GeneratedRecords: three peers, one group,
# bursts over their limits, a peer's max-concurrent cap, decisions by a model of the limits and the cap written
# apart from lua/admit.lua; admitted calls' carrier attempts with answers, one in ten first carriers answering 503,
# which carriers fail over on) replayed by `trunkgate what-if` through the configuration that decided them.
# Figures: the replay's wall time and calls per second, and the share of decisions it reproduced (the target: at
# least 99.9%).
#
#   bench/what-if.sh                     # 1,000,000 calls over a day (about 86 ms apart on average)
#   CALLS=100000 bench/what-if.sh
# Needs redis-server on PATH (or the bundled one) and a built jar (mvn -DskipTests package).
# Work files go to WORK_DIR (default: a new directory under /tmp); output also to $WORK_DIR/what-if.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/results.sh
CALLS=${CALLS:-1000000}
MEAN_GAP_US=${MEAN_GAP_US:-$((86400000000 / CALLS))}
JAR=${JAR:-$PWD/target/trunkgate.jar}
MVN=${MVN:-mvn -q -o}
WORK_DIR=${WORK_DIR:-$(mktemp -d /tmp/what-if-bench.XXXXXX)}

$MVN test-compile
$MVN exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.trunkgate.bench.WhatIfRecords \
  -Dexec.args="$WORK_DIR $CALLS $MEAN_GAP_US"
(
  cd "$WORK_DIR"
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname) nproc=$(nproc) load before: $(cat /proc/loadavg)"
  start=$(date +%s.%N)
  java -jar "$JAR" what-if --records calls.jsonl --config conf > report.txt
  end=$(date +%s.%N)
  cat report.txt
  echo "# load after: $(cat /proc/loadavg)"
  awk -v s="$start" -v e="$end" -v n="$CALLS" 'BEGIN { printf "replay: %d calls in %.1f s (%.0f calls/s, JVM and redis-server start included)\n", n, e - s, n / (e - s) }'
) 2>&1 | tee "$WORK_DIR/what-if.txt"
mapfile -t figures < <(grep -E '^replay: |^same decision as recorded' "$WORK_DIR/what-if.txt")
results_append what-if.sh "$(results_command bench/what-if.sh CALLS MEAN_GAP_US)" "${figures[@]}"
