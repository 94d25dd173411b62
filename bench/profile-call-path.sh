#!/usr/bin/env bash
# CPU profile of a warm gateway at steady load: the bench/sipp-vs-kamailio.sh set-up (standalone redis-server,
# carrier with burst = 1), one SIPp caller at RATE calls/s for WARM_S + PROFILE_S (+ 5) seconds. After WARM_S
# it profiles PROFILE_S seconds with async-profiler (loaded into the running JVM with `jcmd JVMTI.agent_load`;
# the native library comes from the Maven Central artifact tools.profiler:async-profiler, fetched into ~/.m2 by
# `mvn dependency:get` when missing) and, over the same seconds, JFR (execution samples, GC).
# Prints the CPU per call grouped by owner (bench/profile_breakdown.py) and the top frames, and the KiB allocated
# per call over the window (JFR's per-thread allocation counters, bench/jfr_alloc.py; the largest threads' share).
#
#   bench/profile-call-path.sh
#   RATE=400 WARM_S=60 PROFILE_S=30 bench/profile-call-path.sh
#   JAVA_OPTS="-XX:+UseParallelGC" bench/profile-call-path.sh
#   TG_RECORDS_FILE=/tmp/calls.jsonl bench/profile-call-path.sh      # with call records written
# Files in the work directory: profile.collapsed (async-profiler, one line per stack with thread name), gw.jfr.
# Output also in target/bench-profile.txt.
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATE=${RATE:-200}
WARM_S=${WARM_S:-40}
PROFILE_S=${PROFILE_S:-20}
AP_VERSION=${AP_VERSION:-4.1}
EVENT=${EVENT:-cpu}

sipp_init trunkgate-profile
sipp_tee bench-profile
echo "# $(machine_line) cpu=\"$(lscpu | grep 'Model name' | sed 's/.*: *//')\" work=$WORK"

AP_JAR=~/.m2/repository/tools/profiler/async-profiler/$AP_VERSION/async-profiler-$AP_VERSION.jar
if [ ! -f "$AP_JAR" ]; then
  mvn -q dependency:get -Dartifact="tools.profiler:async-profiler:$AP_VERSION" -Dtransitive=false
fi
(cd "$WORK" && unzip -o -q "$AP_JAR" 'linux-x64/libasyncProfiler.so')
AP_LIB="$WORK/linux-x64/libasyncProfiler.so"

JAVA_OPTS="${JAVA_OPTS:-} -XX:StartFlightRecording=name=tg,settings=profile,disk=true,maxsize=500m" start_vs_gateway
secs=$((WARM_S + PROFILE_S + 5))
steady_caller "$GW_PORT" "$RATE" "$secs"
sleep "$WARM_S"

threads() { for t in /proc/"$GW"/task/*; do printf '%s\t%s\n' "$(cat "$t/comm")" "$(awk '{print $14 + $15}' "$t/stat")"; done; }
calls_done() { python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac/uac_stat.csv" | sed -n 's/.*successful=\([0-9]*\).*/\1/p'; }
threads >"$WORK/threads0"; c0=$(calls_done); t0=$(awk '{print $14 + $15}' "/proc/$GW/stat"); load0=$(cut -d' ' -f1 /proc/loadavg)
jcmd "$GW" JVMTI.agent_load "$AP_LIB" "\"start,event=$EVENT,interval=1ms,threads\"" >/dev/null
jcmd "$GW" JFR.start name=window settings=profile >/dev/null
sleep "$PROFILE_S"
jcmd "$GW" JVMTI.agent_load "$AP_LIB" "\"stop,collapsed,file=$WORK/profile.collapsed\"" >/dev/null
jcmd "$GW" JFR.stop name=window filename="$WORK/gw.jfr" >/dev/null
threads >"$WORK/threads1"; c1=$(calls_done); t1=$(awk '{print $14 + $15}' "/proc/$GW/stat"); load1=$(cut -d' ' -f1 /proc/loadavg)
HZ=$(getconf CLK_TCK)
calls=$((c1 - c0))
cpu_ms=$(echo "($t1 - $t0) * 1000 / $HZ" | bc)
alloc=$(python3 "$REPO_DIR/bench/jfr_alloc.py" "$WORK/gw.jfr" "$calls")
window_line="$RATE calls/s offered; profiled ${PROFILE_S} s after ${WARM_S} s of load: $calls calls completed, gateway CPU ${cpu_ms} ms = $(echo "scale=3; $cpu_ms / $calls" | bc) ms per call; allocated ${alloc%% *} KiB per call (${alloc#* }); load1 $load0 -> $load1; threads $(ls /proc/"$GW"/task | wc -l)"
echo "# $window_line"
echo "# CPU by thread group (from /proc/PID/task/*/stat over the window; ms per call):"
python3 - "$WORK/threads0" "$WORK/threads1" "$calls" "$HZ" <<'EOF'
import re, sys
def load(p):
    d = {}
    for line in open(p):
        name, ticks = line.rstrip("\n").rsplit("\t", 1)
        name = re.sub(r"[-#_ ]?\d+$", "", name)   # pool-1-thread-3 -> pool-1-thread, GC Thread#0 -> GC Thread
        d.setdefault(name, []).append(int(ticks))
    return {k: sum(v) for k, v in d.items()}, {k: len(v) for k, v in d.items()}
a, _ = load(sys.argv[1]); b, n = load(sys.argv[2])
calls, hz = int(sys.argv[3]), int(sys.argv[4])
rows = sorted(((b[k] - a.get(k, 0), k) for k in b), reverse=True)
for ticks, name in rows:
    if ticks > 0:
        print(f"  {name:<24} threads={n[name]:<3} {ticks * 1000 / hz / calls:.3f} ms/call")
EOF
wait "$UAC" || true
echo "# caller: $(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac/uac_stat.csv")"
python3 "$REPO_DIR/bench/profile_breakdown.py" "$WORK/profile.collapsed" --cpu-ms "$cpu_ms" --calls "$calls" |
  tee "$WORK/breakdown.txt"
# the owners (JAIN-SIP, GC, JIT, ...) with their share of the samples and ms per call, the largest first
mapfile -t owners < <(sed -n '/^# by owner/,/^# /{/^  /{s/^  *//; s/  */ /g; p}}' "$WORK/breakdown.txt" | head -8)
results_append profile-call-path.sh "$(results_command bench/profile-call-path.sh RATE WARM_S PROFILE_S AP_VERSION EVENT)" \
  "$window_line" "${owners[@]/#/owner: }"
