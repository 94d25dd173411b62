#!/usr/bin/env bash
# CPU per call of a gateway just started, interval by interval: the bench/sipp-vs-kamailio.sh set-up (standalone
# redis-server, carrier with burst = 1), one SIPp caller at RATE calls/s from the moment the gateway is ready, for
# SECS seconds. Every IV seconds it prints the calls completed, the gateway's CPU per call, and of it the JIT
# compilers' (C1 + C2 threads, from /proc/PID/task/*/stat): how long after start the compiler still costs. For the
# last interval it prints CPU, wake-ups (voluntary context switches) and preemptions per call by thread group
# (bench/thread_stats.py).
#
#   bench/cpu-after-start.sh
#   RATE=300 SECS=60 IV=10 bench/cpu-after-start.sh
#   TG_WARM_UP_CALLS=12000 JAR=/tmp/other.jar bench/cpu-after-start.sh
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATE=${RATE:-100}
SECS=${SECS:-90}
IV=${IV:-15}

sipp_init trunkgate-cpu-after-start
sipp_tee bench-cpu-after-start
echo "# $(machine_line) cpu=\"$(lscpu | grep 'Model name' | sed 's/.*: *//')\" work=$WORK"
start_vs_gateway
grep -h 'warm-up:' "$WORK/gw.log" | sed 's/.* - /# /'
steady_caller "$GW_PORT" "$RATE" "$SECS"

HZ=$(getconf CLK_TCK)
jit_ticks() {
  local sum=0 t
  for t in /proc/"$GW"/task/*; do
    case "$(cat "$t/comm")" in C1*|C2*) sum=$((sum + $(awk '{print $14 + $15}' "$t/stat"))) ;; esac
  done
  echo "$sum"
}
all_ticks() { awk '{print $14 + $15}' "/proc/$GW/stat"; }
calls_done() {
  local n
  n=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac/uac_stat.csv" 2>/dev/null | sed -n 's/.*successful=\([0-9]*\).*/\1/p')
  echo "${n:-0}"
}
t0=$(all_ticks); j0=$(jit_ticks); n0=$(calls_done)
INTERVALS=()
for ((s = IV; s <= SECS; s += IV)); do
  last=$((s + IV > SECS))
  [ "$last" -eq 1 ] && python3 "$REPO_DIR/bench/thread_stats.py" snapshot "$GW" > "$WORK/threads-before.json"
  sleep "$IV"
  [ "$last" -eq 1 ] && python3 "$REPO_DIR/bench/thread_stats.py" snapshot "$GW" > "$WORK/threads-after.json"
  t1=$(all_ticks); j1=$(jit_ticks); n1=$(calls_done)
  calls=$((n1 - n0))
  if [ "$calls" -gt 0 ]; then
    printf -v line '%4d s after ready: %5d calls | gateway CPU per call %.3f ms, of it JIT %.3f ms | load1 %s' "$s" "$calls" \
      "$(echo "($t1 - $t0) * 1000 / $HZ / $calls" | bc -l)" "$(echo "($j1 - $j0) * 1000 / $HZ / $calls" | bc -l)" \
      "$(cut -d' ' -f1 /proc/loadavg)"
    echo "$line"
    INTERVALS+=("$(sed 's/^ *//' <<<"$line")")
  fi
  t0=$t1; j0=$j1; n0=$n1
done
# the last interval by thread: where CPU goes and how often each kind of thread sleeps and is woken again
echo "# last ${IV} s by thread group:"
python3 "$REPO_DIR/bench/thread_stats.py" diff "$WORK/threads-before.json" "$WORK/threads-after.json" --calls "$calls" |
  tee "$WORK/threads.txt" | sed 's/^/# /'
wait "$UAC" || true
caller=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac/uac_stat.csv")
echo "# caller: $caller"
mapfile -t by_thread < <(awk '$1 == "all" {print "last interval, all threads: " $2 " threads, CPU " $3 " ms per call, " $4 " wake-ups per call, " $5 " preemptions per call"}' "$WORK/threads.txt")
results_append cpu-after-start.sh "$(results_command bench/cpu-after-start.sh RATE SECS IV)" \
  "${INTERVALS[@]}" "${by_thread[@]}" "caller: $caller"
