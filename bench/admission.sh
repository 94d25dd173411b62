#!/bin/sh
# Admission benchmarks: throughput/latency (AdmissionBenchmark, incl. redis-benchmark on the same script)
# and Redis memory per peer (AdmissionMemory). Each starts its own redis-server on a free port.
#
#   bench/admission.sh                 # ~10 s per run (about 2 minutes in all)
#   SECONDS_PER_RUN=30 bench/admission.sh
#   BENCH_ARGS="--levels 1,16,64,128 --rate 10000" bench/admission.sh
#   SKIP_MEMORY=1 bench/admission.sh
# Needs redis-server and redis-benchmark (Debian: redis-server, redis-tools) on PATH.
# Output is also written to target/bench-admission.txt.
set -eu
cd "$(dirname "$0")/.."
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
