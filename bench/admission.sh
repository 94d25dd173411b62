#!/usr/bin/env bash
# Admission benchmarks: throughput/latency (AdmissionBenchmark, incl. redis-benchmark on the same script)
# and Redis memory per peer (AdmissionMemory). Each starts its own redis-server on a free port.
#
#   bench/admission.sh                 # ~10 s per run (about 2 minutes in all)
#   SECONDS_PER_RUN=30 bench/admission.sh
#   BENCH_ARGS="--levels 1,16,64,128 --rate 10000" bench/admission.sh
#   SKIP_MEMORY=1 bench/admission.sh
# Needs redis-server and redis-benchmark (Debian: redis-server, redis-tools) on PATH.
# Output is also written to target/bench-admission.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/results.sh
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
WARMUP=${WARMUP:-2}
MVN=${MVN:-mvn -q -o}

$MVN test-compile
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname) nproc=$(nproc) $(lscpu | grep 'Model name' | sed 's/  */ /g')"
  echo "# load before: $(cat /proc/loadavg)"
  $MVN exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.trunkgate.bench.AdmissionBenchmark \
    -Dexec.args="--seconds $SECONDS_PER_RUN --warmup $WARMUP ${BENCH_ARGS:-}"
  if [ -z "${SKIP_MEMORY:-}" ]; then
    $MVN exec:java -Dexec.classpathScope=test -Dexec.mainClass=io.trunkgate.bench.AdmissionMemory
  fi
  echo "# load after: $(cat /proc/loadavg)"
} 2>&1 | tee target/bench-admission.txt
# each run's line (decisions per second and latency, squeezed), redis-benchmark's, and the memory per peer
mapfile -t figures < <(grep -E ' decisions |^redis-benchmark c=|^caps on / caps off|MEMORY USAGE per peer' target/bench-admission.txt |
  sed 's/^ *//; s/  */ /g')
results_append admission.sh "$(results_command bench/admission.sh SECONDS_PER_RUN WARMUP BENCH_ARGS SKIP_MEMORY)" "${figures[@]}"
