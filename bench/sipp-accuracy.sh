#!/usr/bin/env bash
# Accuracy of admission and pacing seen from the carrier, with real SIP traffic (SIPp), loopback only.
#
# (a) limit: a peer limited to {window = WINDOW_A_MS, max = 100} offered 2 x RATE_A calls/s (default 2 x 150) for
#     SECONDS_A s (default 30) through TWO gateway instances (redis.mode = standalone, one redis-server started
#     here on a free port), one SIPp caller per gateway, to a SIPp carrier without pacing. At the carrier:
#     the most INVITEs in any rolling 1 s (printed) and in any 1 s less JITTER_MS (default 5 ms of jitter
#     between admission and the wire forgiven; must be <= 100), and admitted calls against the strict maximum
#     100 x (floor(offered seconds) + 1) (printed) and against the greedy optimum on the actual offer times
#     (must be >= 97%). Also, from dumps of the peer's sliding log in Redis, the same window check on the
#     limiter's own clock (Redis TIME at admission) and the delay admission -> arrival at the carrier.
#     WINDOW_A_MS defaults to 1000: the limit exactly as a peer's contract says it; WINDOW_A_MS=1020 adds a 20 ms
#     margin for the jitter between admission and arrival (conf/README.md, peers).
# (b) pacing: a carrier at cps = 50 (burst 1, max-wait 10s) offered RATE_B calls/s (default 150) for
#     SECONDS_B s (default 20) through one gateway (embedded Redis): the gaps between consecutive INVITE
#     arrivals at the carrier, share >= 19 ms (target 99%).
# INVITE arrival times at the carrier come from two clocks. With tshark installed (Debian package tshark;
# NO_WIRE=1 skips it) the datagrams to the carrier are captured on lo and the checks use their kernel
# arrival times ("on the wire"). bench/sipp/uas.xml also logs [timestamp] (microseconds) per INVITE when SIPp's
# event loop reads it; on cores shared with the callers and gateways that is up to a few ms later and uneven,
# so those figures are printed too but decide the exit status only without a capture.
# Analysis: bench/sipp_analyze.py (window, gaps).
#
# Each part first warms its fresh gateway(s) up for WARMUP_S s (default 5) with a separate carrier log.
#
#   bench/sipp-accuracy.sh             # both parts, ~2 minutes
#   PART=a bench/sipp-accuracy.sh      # or PART=b
#   KEEP=1 ...                         # keep the work directory (SIPp logs with every timestamp)
# Output also in target/bench-sipp-accuracy.txt. Exit status 1 when a check fails.
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

PART=${PART:-ab}
RATE_A=${RATE_A:-150}; SECONDS_A=${SECONDS_A:-30}; LIMIT_A=${LIMIT_A:-100}
WINDOW_A_MS=${WINDOW_A_MS:-1000}  # the peer's window; the carrier is checked over exactly 1 s
JITTER_MS=${JITTER_MS:-5}         # ... less this much: the jitter between admission and the wire that is forgiven
RATE_B=${RATE_B:-150}; SECONDS_B=${SECONDS_B:-20}; CPS_B=${CPS_B:-50}
MIN_GAP_MS=${MIN_GAP_MS:-19}
WARMUP_S=${WARMUP_S:-5}          # warm-up of each fresh gateway (JIT) before the measured run

sipp_init trunkgate-sipp-accuracy
[ -n "${KEEP:-}" ] || trap 'sipp_cleanup; rm -rf "$WORK"' EXIT
sipp_tee bench-sipp-accuracy
echo "# $(machine_line) work=$WORK"
ANALYZE="python3 $REPO_DIR/bench/sipp_analyze.py"
status=0
FIGURES=()   # for bench/RESULTS.md: the checks on the clock that decides (the wire when captured)
# figures PART FILE: the lines of an analysis worth keeping (not the per-second counts or the list of gaps)
figures() { while IFS= read -r l; do FIGURES+=("$1 $l"); done < <(grep -v '^per second\|^smallest' "$2" || true); }

# uac NAME GW_PORT RATE SECONDS: one SIPp caller (uac-503.xml) in the background; sets UAC_PID_<NAME>.
uac() {
  local name=$1 port=$2 rate=$3 secs=$4
  (cd "$WORK" && exec timeout "$((secs + 60))" sipp -sf "$SIPP_DIR/uac-503.xml" -i 127.0.0.1 \
      -p "$(free_sip_port 127.0.0.1)" "127.0.0.1:$port" -s 4420555 -r "$rate" -m "$((rate * secs))" -l 20000 \
      -d 0 -nostdin -buff_size 4194304 -timeout "$((secs + 45))s" -timeout_error \
      -trace_logs -log_file "${name}_offers.log" -trace_err -error_file "${name}_errors.log" \
      -trace_stat -stf "${name}_stat.csv" -fd 1 -trace_screen -screen_file "${name}_screen.log" \
      >"$WORK/$name.out" 2>&1) &
  PIDS+=("$!")
  printf -v "UAC_PID_$name" '%s' "$!"
}

# wait_uac NAME: waits for the caller; prints its counters; returns its exit code.
wait_uac() {
  local pidvar="UAC_PID_$1" rc=0
  wait "${!pidvar}" || rc=$?
  echo "  caller $1: sipp exit $rc; $($ANALYZE stat "$WORK/$1_stat.csv" 2>&1 || true);" \
    "503 received: $(grep -c '^REJECT' "$WORK/$1_offers.log" 2>/dev/null || echo 0)"
  return "$rc"
}

if [[ $PART == *a* ]]; then
  echo "## (a) peer limit {${WINDOW_A_MS}ms, $LIMIT_A}: 2 gateways x $RATE_A calls/s for $SECONDS_A s, one standalone Redis"
  echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  start_redis
  UAS_PORT=$(free_sip_port 127.0.0.2)
  GW1=$(free_sip_port 127.0.0.1); GW2=$(free_sip_port 127.0.0.1)
  [ "$GW1" != "$GW2" ] || GW2=$(free_sip_port 127.0.0.1)
  for i in 1 2; do
    port_var="GW$i"
    printf -v "ADMIN$i" '%s' "$(free_port 127.0.0.1)"
    admin_var="ADMIN$i"
    start_gateway "gwa$i" "$SIPP_DIR/conf-limit/gateway.conf" TG_SIP_PORT="${!port_var}" \
      TG_ADMIN_PORT="${!admin_var}" TG_INSTANCE_ID="sipp-a$i" \
      TG_REDIS="redis://127.0.0.1:$REDIS_PORT" TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" \
      TG_PEER_WINDOW="${WINDOW_A_MS}ms"
  done
  if [ "$LIMIT_A" != 100 ]; then echo "note: conf-limit/peers/sipp-caller.conf says max = 100"; fi
  # Warm-up (JIT) of both gateways, with its own carrier log; then 2 s so the peer's window is empty again.
  sipp_uas uasw 127.0.0.2 "$UAS_PORT" -timeout 60s
  uac warma1 "$GW1" "$RATE_A" "$WARMUP_S"; uac warma2 "$GW2" "$RATE_A" "$WARMUP_S"
  wait_uac warma1 >/dev/null || true; wait_uac warma2 >/dev/null || true
  sleep 1; stop_uas uasw 0; sleep 1
  echo "  warm-up: $WARMUP_S s at 2 x $RATE_A calls/s done"
  sipp_uas uasa 127.0.0.2 "$UAS_PORT" -timeout "$((SECONDS_A + 90))s"
  WIRE_A=""; start_wire wirea 127.0.0.2 "$UAS_PORT" && WIRE_A=1
  # The limiter's own clock: every admitted call is a member of the peer's 1 s sliding log, scored with the
  # Redis TIME (microseconds) of its admission, and stays there >= 1 s; a dump every 0.25 s sees them all.
  ZKEY="tgbench:{p:sipp-caller}:peer:sipp-caller:$WINDOW_A_MS"   # key-prefix : {p:peer} : peer : id : window ms
  if [ -z "${NO_ZDUMP:-}" ] && command -v redis-cli >/dev/null 2>&1; then
    ( end=$((SECONDS + SECONDS_A + 60))
      while [ $SECONDS -lt $end ]; do
        redis-cli -p "$REDIS_PORT" zrange "$ZKEY" 0 -1 withscores; sleep 0.25
      done ) >"$WORK/zset.log" 2>&1 &
    PIDS+=("$!")
  fi
  uac uaca1 "$GW1" "$RATE_A" "$SECONDS_A"
  uac uaca2 "$GW2" "$RATE_A" "$SECONDS_A"
  wait_uac uaca1 || status=1
  wait_uac uaca2 || status=1
  sleep 1.5
  stop_uas uasa 0
  [ -z "$WIRE_A" ] || stop_wire wirea
  # The gateways' own delay between the admission verdict and the INVITE on the wire (warm-up included).
  for i in 1 2; do admin_var="ADMIN$i"; curl -s "http://127.0.0.1:${!admin_var}/metrics" >"$WORK/gwa$i.metrics" || true; done
  to_send=$($ANALYZE histogram trunkgate_admission_to_send_seconds "$WORK"/gwa*.metrics 2>&1 || true)
  echo "  $to_send"
  FIGURES+=("(a) $to_send")
  stop_gateway gwa1 || status=1
  stop_gateway gwa2 || status=1
  echo "  carrier: $($ANALYZE stat "$WORK/uasa_stat.csv" 2>&1 || true)"
  echo "  gateways: admitted (final=200) $(cat "$WORK"/gwa*.log | grep -c 'admission=admitted.*final=200' || true)," \
    "refused by the limit $(cat "$WORK"/gwa*.log | grep -c 'admission=rejected' || true)"
  for clock in ${WIRE_A:+wirea} uasa; do
    check=1; [ "$clock" = wirea ] || [ -z "$WIRE_A" ] || check=0
    echo "  at the carrier, $([ "$clock" = wirea ] && echo 'on the wire (kernel time of arrival)' || echo "SIPp's timestamps"):"
    $ANALYZE window "$WORK/${clock}_invites.log" --window 1 --max "$LIMIT_A" --min-optimum-ratio 0.97 \
      --jitter-ms "$JITTER_MS" \
      --offered "$WORK/uaca1_offers.log" "$WORK/uaca2_offers.log" 2>&1 | tee "$WORK/${clock}_window.txt" | sed 's/^/    /' \
      || [ $check = 0 ] || status=1
    [ $check = 0 ] || figures "(a) $clock:" "$WORK/${clock}_window.txt"
    if [ -s "$WORK/zset.log" ]; then
      $ANALYZE admissions "$WORK/zset.log" "$WORK/${clock}_invites.log" --window "$(python3 -c "print($WINDOW_A_MS / 1000)")" --max "$LIMIT_A" \
        --offered "$WORK/uaca1_offers.log" "$WORK/uaca2_offers.log" 2>&1 | tee "$WORK/${clock}_admissions.txt" | sed 's/^/    /' \
        || [ $check = 0 ] || status=1
      [ $check = 0 ] || figures "(a) $clock:" "$WORK/${clock}_admissions.txt"
    fi
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  sipp_cleanup   # the redis-server of part (a), the dump loop
fi

if [[ $PART == *b* ]]; then
  echo "## (b) carrier pacing cps=$CPS_B (burst 1, max-wait 10s): $RATE_B calls/s offered for $SECONDS_B s, one gateway"
  echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  UAS_PORT=$(free_sip_port 127.0.0.2)
  GWB=$(free_sip_port 127.0.0.1)
  start_gateway gwb "$SIPP_DIR/conf-pace/gateway.conf" TG_SIP_PORT="$GWB" \
    TG_ADMIN_PORT="$(free_port 127.0.0.1)" TG_INSTANCE_ID="sipp-b" \
    TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp"
  if [ "$CPS_B" != 50 ]; then echo "note: conf-pace/carriers/sipp-uas.conf says cps = 50"; fi
  # Warm-up below the carrier's rate (no backlog left behind), with its own carrier log.
  sipp_uas uasw 127.0.0.2 "$UAS_PORT" -timeout 60s
  uac warmb "$GWB" "$((CPS_B * 4 / 5))" "$WARMUP_S"
  wait_uac warmb >/dev/null || true
  sleep 1; stop_uas uasw 0; sleep 1
  echo "  warm-up: $WARMUP_S s at $((CPS_B * 4 / 5)) calls/s done"
  sipp_uas uasb 127.0.0.2 "$UAS_PORT" -timeout "$((SECONDS_B + 90))s"
  WIRE_B=""; start_wire wireb 127.0.0.2 "$UAS_PORT" && WIRE_B=1
  uac uacb "$GWB" "$RATE_B" "$SECONDS_B"
  wait_uac uacb || status=1
  sleep 1.5
  stop_uas uasb 0
  [ -z "$WIRE_B" ] || stop_wire wireb
  stop_gateway gwb || status=1
  echo "  carrier: $($ANALYZE stat "$WORK/uasb_stat.csv" 2>&1 || true)"
  echo "  gateway: forwarded and answered $(grep -c 'peer=sipp-caller .*final=200' "$WORK/gwb.log" || true)," \
    "503 no slot within max-wait $(grep -c 'final=503' "$WORK/gwb.log" || true)," \
    "held ms max $(grep -o 'held=[0-9]*' "$WORK/gwb.log" | cut -d= -f2 | sort -n | tail -1)"
  for clock in ${WIRE_B:+wireb} uasb; do
    check=1; [ "$clock" = wireb ] || [ -z "$WIRE_B" ] || check=0
    echo "  at the carrier, $([ "$clock" = wireb ] && echo 'on the wire (kernel time of arrival)' || echo "SIPp's timestamps"):"
    $ANALYZE gaps "$WORK/${clock}_invites.log" --min-ms "$MIN_GAP_MS" --target 0.99 2>&1 | tee "$WORK/${clock}_gaps.txt" \
      | sed 's/^/    /' || [ $check = 0 ] || status=1
    [ $check = 0 ] || figures "(b) $clock:" "$WORK/${clock}_gaps.txt"
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
FIGURES+=("exit status $status")
results_append sipp-accuracy.sh "$(results_command bench/sipp-accuracy.sh PART RATE_A SECONDS_A LIMIT_A WINDOW_A_MS \
  JITTER_MS RATE_B SECONDS_B CPS_B MIN_GAP_MS WARMUP_S)" "${FIGURES[@]}"
echo "# exit status $status"
exit "$status"
