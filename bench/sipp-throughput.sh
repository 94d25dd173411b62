#!/usr/bin/env bash
# Full-call throughput: SIPp caller -> gateway (embedded Redis, admission + pacing on every INVITE) -> SIPp
# carrier, all on this machine. Steps the call rate up; each step runs STEP_S seconds (bounded), and passes
# when fewer than 0.1% of its calls failed and SIPp really offered the rate (>= 95% of it). Stops at the
# first step that does not pass. Prints, per step: calls, failures, offered rate, INVITE->200 response time
# percentiles (from SIPp's -trace_rtt, whole ms), CPU seconds used by each process, load average.
#
#   bench/sipp-throughput.sh
#   RATES="500 1000 1500" STEP_S=20 bench/sipp-throughput.sh
#   JAVA_OPTS="-XX:StartFlightRecording=delay=20s,duration=30s,filename=/tmp/tg.jfr" RATES="800 800 800" \
#     bench/sipp-throughput.sh
# Output also in target/bench-sipp-throughput.txt. Loopback only; free ports.
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATES=${RATES:-200 400 600 800 1000 1200 1600 2000 2500 3000}
STEP_S=${STEP_S:-15}             # seconds of calls per step (the step ends at most STEP_S + 25 s later)
WARMUP_RATE=${WARMUP_RATE:-200}
WARMUP_S=${WARMUP_S:-10}
CALL_MS=${CALL_MS:-0}            # pause between ACK and BYE
MAX_FAIL=${MAX_FAIL:-0.001}

sipp_init trunkgate-sipp-throughput
sipp_tee bench-sipp-throughput

echo "# $(machine_line) cpu=\"$(lscpu | grep 'Model name' | sed 's/.*: *//')\" work=$WORK"
echo "# rates: $RATES; $STEP_S s per step; call: INVITE/100/180/200/ACK, ${CALL_MS} ms, BYE/200; warm-up $WARMUP_RATE/s for $WARMUP_S s"

GW_PORT=$(free_sip_port 127.0.0.1)
UAS_PORT=$(free_sip_port 127.0.0.2)
ADMIN_PORT=$(free_port 127.0.0.1)
start_gateway gw "$SIPP_DIR/conf/gateway.conf" TG_SIP_PORT="$GW_PORT" TG_ADMIN_PORT="$ADMIN_PORT" \
  TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp"
# The gateway logs one line per call; keep that (it is part of the production path) but in a file.
sipp_uas uas 127.0.0.2 "$UAS_PORT" -timeout 3600s
GW_REDIS=${GW_REDIS_PID_gw:-}

cpu_ticks() { # utime + stime of a pid, in clock ticks (0 when gone)
  awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}
HZ=$(getconf CLK_TCK)

# run_step NAME RATE SECONDS: one SIPp caller run; prints one result line; returns 1 when the step fails.
run_step() {
  local name=$1 rate=$2 secs=$3
  local calls=$((rate * secs)) dir="$WORK/$name"
  mkdir -p "$dir"
  local gw0 uas0 redis0 load0 t0 t1 rc=0
  gw0=$(cpu_ticks "$GW_PID_gw"); uas0=$(cpu_ticks "$UAS_PID_uas"); redis0=$(cpu_ticks "${GW_REDIS:-0}")
  load0=$(cut -d' ' -f1 /proc/loadavg); t0=$(date +%s.%N)
  (cd "$dir" && timeout "$((secs + 25))" /usr/bin/time -f '%U %S' -o uac.time \
      sipp -sf "$SIPP_DIR/uac.xml" -i 127.0.0.1 -p "$(free_sip_port 127.0.0.1)" "127.0.0.1:$GW_PORT" \
      -s 4420555 -r "$rate" -m "$calls" -l $((rate * 20)) -d "$CALL_MS" -nostdin -buff_size 4194304 \
      -timeout "$((secs + 20))s" -timeout_error -trace_err -error_file uac_errors.log \
      -trace_stat -stf uac_stat.csv -fd 1 -trace_screen -screen_file uac_screen.log \
      -trace_rtt -rtt_freq 1 >uac.out 2>&1) || rc=$?
  t1=$(date +%s.%N)
  local gw1 uas1 redis1 load1
  gw1=$(cpu_ticks "$GW_PID_gw"); uas1=$(cpu_ticks "$UAS_PID_uas"); redis1=$(cpu_ticks "${GW_REDIS:-0}")
  load1=$(cut -d' ' -f1 /proc/loadavg)
  local stat rtt uac_cpu
  stat=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$dir/uac_stat.csv" 2>&1 || true)
  rtt=$(python3 "$REPO_DIR/bench/sipp_analyze.py" rtt "$dir"/uac_*_rtt.csv 2>&1 || true)
  uac_cpu=$(tail -1 "$dir/uac.time" | awk '{printf "%.1f", $1 + $2}' 2>/dev/null || echo "?")
  local created failed wall offered verdict=pass
  created=$(sed -n 's/.*created=\([0-9]*\).*/\1/p' <<<"$stat")
  failed=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$stat")
  wall=$(echo "$t1 - $t0" | bc)
  # offered rate = calls created / seconds from the first INVITE to the last one (SIPp's rtt file has the
  # send clock of each answered call; the stat file only has whole seconds)
  offered=$(python3 - "$dir" <<'EOF'
import csv, glob, sys
ts = []
for p in glob.glob(sys.argv[1] + "/uac_*_rtt.csv"):
    for row in csv.reader(open(p), delimiter=";"):
        if len(row) >= 3 and row[2] == "invite":
            ts.append(float(row[0]) - float(row[1]))   # completion time - response time = INVITE sent
ts.sort()
print(f"{(len(ts) - 1) / ((ts[-1] - ts[0]) / 1000.0):.1f}" if len(ts) > 1 and ts[-1] > ts[0] else "0")
EOF
)
  if [ -z "$created" ] || [ "$created" -ne "$calls" ]; then verdict="FAIL(created ${created:-?} of $calls)";
  elif python3 -c "import sys; sys.exit(0 if $failed <= $MAX_FAIL * $created else 1)"; then :;
  else verdict="FAIL(failed $failed > $MAX_FAIL x $created)"; fi
  if [ "$verdict" = pass ] && ! python3 -c "import sys; sys.exit(0 if $offered >= 0.95 * $rate else 1)"; then
    verdict="FAIL(SIPp offered only $offered/s)"
  fi
  printf -v STEP_LINE '%s rate=%s/s calls=%s sipp_rc=%s wall=%.1fs | %s | offered=%s/s | %s | cpu_s gateway=%.1f redis=%.1f uas=%.1f uac=%s | load1 %s -> %s | %s' \
    "$name" "$rate" "$calls" "$rc" "$wall" "$stat" "$offered" "$rtt" \
    "$(echo "($gw1 - $gw0) / $HZ" | bc -l)" "$(echo "($redis1 - $redis0) / $HZ" | bc -l)" \
    "$(echo "($uas1 - $uas0) / $HZ" | bc -l)" "$uac_cpu" "$load0" "$load1" "$verdict"
  echo "$STEP_LINE"
  sleep 2   # the carrier's last calls end (its scenario pauses 1 s after the BYE)
  [ "$verdict" = pass ]
}

run_step warmup "$WARMUP_RATE" "$WARMUP_S" || echo "# warm-up did not pass"
best=0 best_line="none passed" failed_line="none failed"
for rate in $RATES; do
  if run_step "step-$rate" "$rate" "$STEP_S"; then best=$rate; best_line=$STEP_LINE; else failed_line=$STEP_LINE; break; fi
done
echo "# highest passing rate: $best calls/s (< $MAX_FAIL failed, >= 95% of the rate offered)"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_uas uas 0
stop_gateway gw || true
echo "# gateway calls by final status: $(grep -o 'final=[0-9]*' "$WORK/gw.log" | sort | uniq -c | tr -s ' ' | paste -sd ',')"
results_append sipp-throughput.sh "$(results_command bench/sipp-throughput.sh RATES STEP_S WARMUP_RATE WARMUP_S CALL_MS MAX_FAIL)" \
  "highest passing rate: $best calls/s" "that step: $best_line" "the next step: $failed_line"
