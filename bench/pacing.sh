#!/usr/bin/env bash
# Pacing benchmark (PacingBenchmark): (a) slot reservations per second and latency through RedisSlotReserver,
# (b) release error of TimerCarrierPacer at 1,000 paced calls/s. Starts its own redis-server on a free port.
#
#   bench/pacing.sh                    # ~5 s per reservation run, 10 s per release run (about 1.5 minutes)
#   SECONDS_PER_RUN=10 bench/pacing.sh
#   BENCH_ARGS="--skip-reserve true --scenarios 10x100" bench/pacing.sh
#   BENCH_ARGS="--levels 1,16,64,128 --over 1.1 --release-seconds 20" bench/pacing.sh
# Needs redis-server on PATH. Output is also written to target/bench-pacing.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/results.sh
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
WARMUP=${WARMUP:-2}
MVN=${MVN:-mvn -q -o}

$MVN test-compile
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname) nproc=$(nproc) $(lscpu | grep 'Model name' | sed 's/  */ /g')"
  echo "# load before: $(cat /proc/loadavg)"
  $MVN exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.trunkgate.bench.PacingBenchmark \
    -Dexec.args="--seconds $SECONDS_PER_RUN --warmup $WARMUP ${BENCH_ARGS:-}"
  echo "# load after: $(cat /proc/loadavg)"
} 2>&1 | tee target/bench-pacing.txt
# (a) each reservation run's line; (b) each scenario's heading and release error, and the control timer's lateness
mapfile -t figures < <(grep -E ' decisions | reservations |^\(b\)|release error, held calls|control timer thread' target/bench-pacing.txt |
  sed 's/^ *//; s/  */ /g')
results_append pacing.sh "$(results_command bench/pacing.sh SECONDS_PER_RUN WARMUP BENCH_ARGS)" "${figures[@]}"
