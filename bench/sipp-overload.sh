#!/usr/bin/env bash
# Overload: SIPp offers RATE full calls per second (default 3,200, twice the highest rate the gateway passed
# in sipp-throughput.sh on the 2-core machine, 1,600/s) for LOAD_S seconds to a gateway whose new-call rate is capped
# at CAPACITY (sip.max-new-calls-per-second, default 500; 0 = no cap). Then the load drops to RECOVER_RATE for RECOVER_S
# seconds, which must pass with no failed call. The caller (bench/sipp/uac-503.xml) takes a 503 as an
# answer, so "failed" means a call that got neither a 200 nor a 503: a timeout or a message out of order.
# Prints: calls answered 200 and 503, failures and retransmissions, INVITE->200 and offer->503 times, the
# gateway's CPU and its largest resident memory during the run, and the recovery step.
#
#   bench/sipp-overload.sh                           # 3,200/s offered, capacity 500/s
#   CAPACITY=0 bench/sipp-overload.sh                 # no cap: the same offer without early shedding
#   RATE=3000 CAPACITY=800 LOAD_S=30 bench/sipp-overload.sh
# Output also in target/bench-sipp-overload.txt. Loopback only; free ports.
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATE=${RATE:-3200}
CAPACITY=${CAPACITY:-500}
LOAD_S=${LOAD_S:-20}
RECOVER_RATE=${RECOVER_RATE:-200}
RECOVER_S=${RECOVER_S:-10}

sipp_init trunkgate-sipp-overload
sipp_tee bench-sipp-overload
echo "# $(machine_line) work=$WORK"
echo "# offer $RATE calls/s for $LOAD_S s to a gateway capped at $CAPACITY new calls/s; then $RECOVER_RATE/s for $RECOVER_S s"

GW_PORT=$(free_sip_port 127.0.0.1)
UAS_PORT=$(free_sip_port 127.0.0.2)
start_gateway gw "$SIPP_DIR/conf-overload/gateway.conf" TG_SIP_PORT="$GW_PORT" \
  TG_ADMIN_PORT="$(free_port 127.0.0.1)" TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" \
  TG_MAX_NEW_CALLS="$CAPACITY"
sipp_uas uas 127.0.0.2 "$UAS_PORT" -timeout 3600s
GW=$GW_PID_gw
HZ=$(getconf CLK_TCK)
cpu_s() { awk -v hz="$HZ" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss_mb() { awk '/VmRSS/ {printf "%.0f\n", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo 0; }

# uac NAME SCENARIO RATE SECONDS: one SIPp caller run in $WORK/NAME; its exit code is not fatal.
uac() {
  local name=$1 scenario=$2 rate=$3 secs=$4 dir="$WORK/$1"
  mkdir -p "$dir"
  (cd "$dir" && timeout "$((secs + 40))" sipp -sf "$SIPP_DIR/$scenario" -i 127.0.0.1 \
      -p "$(free_sip_port 127.0.0.1)" "127.0.0.1:$GW_PORT" -s 4420555 -r "$rate" -m "$((rate * secs))" \
      -l "$((rate * 20))" -d 0 -nostdin -buff_size 4194304 -timeout "$((secs + 35))s" -timeout_error \
      -trace_err -error_file uac_errors.log -trace_stat -stf uac_stat.csv -fd 1 -trace_rtt -rtt_freq 1 \
      -trace_logs -log_file uac_calls.log >uac.out 2>&1) || echo "# $name: sipp exit code $?"
}

summary() {
  local dir="$WORK/$1"
  echo "$1 caller: $(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$dir/uac_stat.csv" 2>&1)"
  echo "$1 INVITE->200: $(python3 "$REPO_DIR/bench/sipp_analyze.py" rtt "$dir"/*_rtt.csv 2>&1 | tail -1)"
}

uac warmup uac.xml 200 10
summary warmup

cpu0=$(cpu_s "$GW"); load0=$(cut -d' ' -f1 /proc/loadavg); max_rss=0
(while kill -0 "$GW" 2>/dev/null; do rss_mb "$GW"; sleep 1; done) >"$WORK/rss.log" &
SAMPLER=$!
t0=$(date +%s.%N)
uac overload uac-503.xml "$RATE" "$LOAD_S"
t1=$(date +%s.%N)
cpu1=$(cpu_s "$GW"); load1=$(cut -d' ' -f1 /proc/loadavg)
summary overload
echo "overload outcomes: $(python3 "$REPO_DIR/bench/sipp_analyze.py" outcomes "$WORK/overload/uac_calls.log" | paste -sd ' ')"
echo "overload gateway: cpu_s=$(echo "$cpu1 - $cpu0" | bc) wall_s=$(printf '%.1f' "$(echo "$t1 - $t0" | bc)") rss_mb_max=$(sort -n "$WORK/rss.log" | tail -1) load1 $load0 -> $load1"
echo "overload gateway log: $(grep -c 'admission=shed(call_rate)' "$WORK/gw.log" || true) shed (call_rate), $(grep -c 'admission=shed(overload)' "$WORK/gw.log" || true) shed (overload: queue delay), $(grep -c 'admission=shed(calls_in_progress)' "$WORK/gw.log" || true) shed (calls_in_progress), $(grep -c 'admission=admitted' "$WORK/gw.log" || true) admitted in all, $(grep -c 'dropped unread' "$WORK/gw.log" || true) datagrams dropped unread"

uac recovery uac.xml "$RECOVER_RATE" "$RECOVER_S"
summary recovery
kill "$SAMPLER" 2>/dev/null || true
echo "# rss_mb at the end: $(rss_mb "$GW"); load: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_uas uas 0
stop_gateway gw || true
recovered=0
python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/recovery/uac_stat.csv" --expect "$((RECOVER_RATE * RECOVER_S))" >/dev/null \
  && recovered=1
ANALYZE="python3 $REPO_DIR/bench/sipp_analyze.py"
results_append sipp-overload.sh \
  "$(results_command bench/sipp-overload.sh RATE CAPACITY LOAD_S RECOVER_RATE RECOVER_S)" \
  "overload caller: $($ANALYZE stat "$WORK/overload/uac_stat.csv" 2>&1)" \
  "overload admitted INVITE->200: $($ANALYZE rtt "$WORK"/overload/*_rtt.csv 2>&1 | tail -1)" \
  "overload outcomes: $($ANALYZE outcomes "$WORK/overload/uac_calls.log" | grep -v '^per second' | paste -sd ' ')" \
  "recovery: $($ANALYZE stat "$WORK/recovery/uac_stat.csv" 2>&1)"
if [ "$recovered" -eq 1 ]; then
  echo "# recovery: all $((RECOVER_RATE * RECOVER_S)) calls successful"
else
  echo "# recovery FAILED"; exit 1
fi
