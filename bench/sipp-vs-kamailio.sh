#!/usr/bin/env bash
# trunkgate against Kamailio, same run, same machine, same SIPp caller (bench/sipp/uac.xml) and the same SIPp
# carrier (bench/sipp/uas.xml, on 127.0.0.2). Each proxy has its own standalone redis-server on a free port:
#  - Kamailio: bench/kamailio/kamailio.cfg (maxfwd, record_route, one EVALSHA of bench/kamailio/window.lua
#    per INVITE through ndb_redis, t_relay), KAM_CHILDREN UDP worker processes;
#  - trunkgate: target/trunkgate.jar with bench/sipp/conf-vs (admission + pacing, carrier burst = 1).
#
# MODE=steps (default): both proxies warmed up (WARMUP_RATE for WARMUP_S), then for each rate in RATES one
# Kamailio step and one trunkgate step of STEP_S seconds each (interleaved, so a change in the machine's load
# hits both alike). A proxy stops stepping after its first failing step. A step passes when fewer than MAX_FAIL
# of its calls failed and SIPp offered >= 95% of the rate. Per step: failed calls, CPU per full call of the
# proxy (utime + stime from /proc/PID/stat over the step, all of Kamailio's processes, / calls created),
# INVITE->200 p50/p99 (SIPp -trace_rtt, whole ms); for trunkgate also what it allocated and its GC pauses per call,
# and the calls it shed (503 overload and the like) and refused as redis_unavailable (from its /metrics). At the
# end: the highest passing rate of each and the ratio. BUSY_LOOPS=N runs N busy loops (ordinary priority, shell
# loops) for the whole run: how each proxy degrades on a busy box.
#
# MODE=cold: only trunkgate. Starts it with bin/trunkgate (on Java 25+ from its start cache, recorded first), probes it with OPTIONS every 20 ms, and the moment it answers 200 (ready; 503 while it warms up)
# offers COLD_RATE calls/s for COLD_S seconds. Prints the time from start to the first SIP answer, failed %,
# INVITE->200 p50/p99. COLD_FROM=listening starts the load at the first answer of any status (503 while it warms
# up): a restart in busy hour, where the calls meet the warm-up.
#
#   bench/sipp-vs-kamailio.sh
#   RATES="400 800" STEP_S=15 bench/sipp-vs-kamailio.sh
#   MODE=cold bench/sipp-vs-kamailio.sh
#   JAVA_OPTS="-Xlog:gc:file=/tmp/gc.log" bench/sipp-vs-kamailio.sh
#   BUSY_LOOPS=2 RATES="400 800 1200 1600 2000 2400" bench/sipp-vs-kamailio.sh
# Needs kamailio + kamailio-redis-modules (steps), sipp, redis-server, redis-cli, python3, the built jar.
# Output also in target/bench-sipp-vs-kamailio.txt (target/bench-sipp-cold-start.txt for MODE=cold).
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

MODE=${MODE:-steps}
RATES=${RATES:-100 200 400 600 800 1200 1600}
STEP_S=${STEP_S:-12}
WARMUP_RATE=${WARMUP_RATE:-200}
WARMUP_S=${WARMUP_S:-10}
MAX_FAIL=${MAX_FAIL:-0.001}
KAM_CHILDREN=${KAM_CHILDREN:-4}
COLD_RATE=${COLD_RATE:-300}
COLD_S=${COLD_S:-20}
COLD_FROM=${COLD_FROM:-ready}
BUSY_LOOPS=${BUSY_LOOPS:-0}
KAM_DIR="$REPO_DIR/bench/kamailio"
HZ=$(getconf CLK_TCK)

case "$MODE" in
  steps) sipp_init trunkgate-sipp-vs-kamailio; sipp_tee bench-sipp-vs-kamailio
         for tool in kamailio redis-server redis-cli; do
           command -v "$tool" >/dev/null 2>&1 || { log "missing: $tool"; exit 2; }
         done ;;
  cold) sipp_init trunkgate-sipp-cold-start; sipp_tee bench-sipp-cold-start ;;
  *) log "MODE must be steps or cold"; exit 2 ;;
esac
echo "# $(machine_line) cpu=\"$(lscpu | grep 'Model name' | sed 's/.*: *//')\" work=$WORK"

# ticks PID...: utime + stime of the processes, in clock ticks (a process that is gone counts 0).
ticks() {
  local sum=0 pid t
  for pid in "$@"; do
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    sum=$((sum + t))
  done
  echo "$sum"
}

# sipp_caller DIR TARGET RATE SECONDS: one SIPp caller run in DIR (exit code in DIR/rc).
sipp_caller() {
  local dir=$1 target=$2 rate=$3 secs=$4 rc=0
  mkdir -p "$dir"
  (cd "$dir" && timeout "$((secs + 25))" sipp -sf "$SIPP_DIR/uac.xml" -i 127.0.0.1 -p "$(free_sip_port 127.0.0.1)" \
      "$target" -s 4420555 -r "$rate" -m "$((rate * secs))" -l $((rate * 20)) -d 0 -nostdin -buff_size 4194304 \
      -timeout "$((secs + 20))s" -timeout_error -trace_err -error_file uac_errors.log \
      -trace_stat -stf uac_stat.csv -fd 1 -trace_screen -screen_file uac_screen.log \
      -trace_rtt -rtt_freq 1 >uac.out 2>&1) || rc=$?
  echo "$rc" >"$dir/rc"
}

# offered_rate DIR: calls answered / seconds from the first INVITE to the last one (from the rtt file).
offered_rate() {
  python3 - "$1" <<'EOF'
import csv, glob, sys
ts = []
for p in glob.glob(sys.argv[1] + "/uac_*_rtt.csv"):
    for row in csv.reader(open(p), delimiter=";"):
        if len(row) >= 3 and row[2] == "invite":
            ts.append(float(row[0]) - float(row[1]))
ts.sort()
print(f"{(len(ts) - 1) / ((ts[-1] - ts[0]) / 1000.0):.1f}" if len(ts) > 1 and ts[-1] > ts[0] else "0")
EOF
}

# field NAME TEXT: the value of NAME=value in TEXT (units kept).
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<" $2" | head -1; }

if [ "$MODE" = cold ]; then
  start_redis redis-tg
  UAS_PORT=$(free_sip_port 127.0.0.2)
  GW_PORT=$(free_sip_port 127.0.0.1)
  sipp_uas uas 127.0.0.2 "$UAS_PORT" -timeout 3600s
  # started as users start it, through bin/trunkgate (on Java 25+ from a start cache, recorded here first)
  java_home=$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")
  java_major=$("$JAVA" -version 2>&1 | sed -n '1s/^[^"]*"\([0-9]*\).*/\1/p')
  gateway() {
    exec env JAVA_HOME="$java_home" JAVA_OPTS="${JAVA_OPTS:-}" TRUNKGATE_JAR="$JAR" TRUNKGATE_CACHE_DIR="$WORK" \
      TG_SIP_PORT="$GW_PORT" TG_ADMIN_PORT="$GW_ADMIN_PORT" \
      TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" TG_REDIS="redis://127.0.0.1:$REDIS_PORT" \
      "$REPO_DIR/bin/trunkgate" run --config "$SIPP_DIR/conf-vs/gateway.conf" "$@"
  }
  GW_ADMIN_PORT=$(free_port 127.0.0.1)
  if [ "${java_major:-0}" -ge 25 ]; then
    log "Java $java_major: recording the start cache first (bin/trunkgate run --warm-up-only)"
    (gateway --warm-up-only) >"$WORK/gw-cache.log" 2>&1 || { tail -20 "$WORK/gw-cache.log" >&2; exit 1; }
  fi
  t0=$(date +%s.%N)
  (gateway) >"$WORK/gw.log" 2>&1 &
  GW=$!
  PIDS+=("$GW")
  # OPTIONS every 20 ms until the gateway answers 200 (60 s at most; it answers 503 while it warms up), or with
  # COLD_FROM=listening until it answers at all (a restart in busy hour: the load meets the warm-up)
  python3 - "$GW_PORT" "$COLD_FROM" <<'EOF' || { log "the gateway never answered OPTIONS"; tail -20 "$WORK/gw.log" >&2; exit 1; }
import socket, sys, time
port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.settimeout(0.02)
me = s.getsockname()[1]
deadline = time.time() + 60
n = 0
while time.time() < deadline:
    n += 1
    msg = (f"OPTIONS sip:127.0.0.1:{port} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:{me};branch=z9hG4bKprobe{n}\r\n"
           f"From: <sip:probe@127.0.0.1>;tag=p{n}\r\nTo: <sip:127.0.0.1:{port}>\r\nCall-ID: probe-{n}@127.0.0.1\r\n"
           f"CSeq: {n} OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n")
    s.sendto(msg.encode(), ("127.0.0.1", port))
    try:
        if s.recv(65535).startswith(b"SIP/2.0 200" if sys.argv[2] == "ready" else b"SIP/2.0 "):
            sys.exit(0)
    except socket.timeout:
        pass
sys.exit(1)
EOF
  t1=$(date +%s.%N)
  log "gateway (pid $GW) answered SIP $(echo "$t1 - $t0" | bc) s after start; offering $COLD_RATE calls/s for $COLD_S s"
  c0=$(ticks "$GW")
  sipp_caller "$WORK/cold" "127.0.0.1:$GW_PORT" "$COLD_RATE" "$COLD_S"
  c1=$(ticks "$GW")
  stat=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/cold/uac_stat.csv" 2>&1 || true)
  rtt=$(python3 "$REPO_DIR/bench/sipp_analyze.py" rtt "$WORK/cold"/uac_*_rtt.csv 2>&1 || true)
  created=$(field created "$stat"); ok=$(field successful "$stat"); failed=$(( ${created:-0} - ${ok:-0} ))
  if grep -q "from the JVM's start cache" "$WORK/gw.log"; then cache=yes; else cache=no; fi
  if [ "${java_major:-0}" -ge 25 ] && [ "$cache" = no ]; then
    log "Java $java_major, but the gateway did not start from its start cache"; exit 1
  fi
  # bin/trunkgate's start is quiet: no AOT warning per class the cache skips, no sun.misc.Unsafe warning for Netty
  noise=$(cat "$WORK"/gw-cache.log "$WORK/gw.log" 2>/dev/null | grep -E '\[warning\]\[aot\]|sun\.misc\.Unsafe' || true)
  [ -z "$noise" ] || { log "start-up warnings from the JVM:"; head -5 <<<"$noise" >&2; exit 1; }
  printf -v cold_line 'cold-start: Java %s, start cache %s | first SIP answer %.2f s after start | %s calls/s for %s s | %s | failed (not successful) %s%% | %s | gateway cpu %.1f s' \
    "$java_major" "$cache" "$(echo "$t1 - $t0" | bc)" "$COLD_RATE" "$COLD_S" "$stat" \
    "$(python3 -c "print(f'{100.0 * ${failed:-0} / max(1, ${created:-0}):.2f}')")" "$rtt" \
    "$(echo "($c1 - $c0) / $HZ" | bc -l)"
  echo "$cold_line"
  results_append "sipp-vs-kamailio.sh (cold)" "$(results_command bench/sipp-vs-kamailio.sh MODE COLD_RATE COLD_S COLD_FROM JAVA)" \
    "$cold_line"
  echo "# gateway calls by final status: $(grep -o 'final=[0-9]*' "$WORK/gw.log" | sort | uniq -c | tr -s ' ' | paste -sd ',')"
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

# --- MODE=steps ---
UAS_PORT=$(free_sip_port 127.0.0.2)
sipp_uas uas 127.0.0.2 "$UAS_PORT" -timeout 3600s

# Kamailio with its own redis-server and the rolling-window script loaded.
start_redis redis-kam
KAM_REDIS_PID=$REDIS_PID
KAM_SHA=$(redis-cli -p "$REDIS_PORT" SCRIPT LOAD "$(cat "$KAM_DIR/window.lua")")
KAM_PORT=$(free_sip_port 127.0.0.1)
mkdir -p "$WORK/kamailio"
cat >"$WORK/kamailio/kamailio-params.cfg" <<EOF
listen=udp:127.0.0.1:$KAM_PORT
#!substdef "!KAM_REDIS_PORT!$REDIS_PORT!g"
#!substdef "!KAM_CARRIER_HOST!127.0.0.2!g"
#!substdef "!KAM_CARRIER_PORT!$UAS_PORT!g"
#!substdef "!KAM_WINDOW_SHA!$KAM_SHA!g"
#!substdef "!KAM_CHILDREN!$KAM_CHILDREN!g"
EOF
(cd "$WORK/kamailio" && exec $PROXY_RUN kamailio -DD -E -m 256 -M 16 -f "$KAM_DIR/kamailio.cfg" >"$WORK/kamailio.log" 2>&1) &
KAM_PID=$!
PIDS+=("$KAM_PID")
for _ in $(seq 100); do
  ss -Hulnp "sport = :$KAM_PORT" 2>/dev/null | grep -q kamailio && break
  kill -0 "$KAM_PID" 2>/dev/null || { log "kamailio exited:"; cat "$WORK/kamailio.log" >&2; exit 1; }
  sleep 0.1
done
log "kamailio (pid $KAM_PID, $KAM_CHILDREN UDP children) on 127.0.0.1:$KAM_PORT, redis-server port $REDIS_PORT"

start_redis redis-tg
TG_REDIS_PID=$REDIS_PID
GW_PORT=$(free_sip_port 127.0.0.1)
GW_ADMIN_PORT=$(free_port 127.0.0.1)
start_gateway gw "$SIPP_DIR/conf-vs/gateway.conf" TG_SIP_PORT="$GW_PORT" TG_ADMIN_PORT="$GW_ADMIN_PORT" \
  TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" TG_REDIS="redis://127.0.0.1:$REDIS_PORT"

# gw_metrics: the gateway's counters this bench reads, as "allocated_bytes gc_pause_s shed redis_unavailable"
# (each the sum over its series).
gw_metrics() {
  curl -s "http://127.0.0.1:$GW_ADMIN_PORT/metrics" | awk '
    /^jvm_gc_memory_allocated_bytes_total/ { a += $NF }
    /^jvm_gc_pause_seconds_sum/ { g += $NF }
    /^trunkgate_calls_shed_total/ { s += $NF }
    /^trunkgate_calls_rejected_total/ && /reason="redis_unavailable"/ { u += $NF }
    END { printf "%.0f %.6f %.0f %.0f\n", a, g, s, u }'
}

for ((i = 0; i < BUSY_LOOPS; i++)); do
  sh -c 'while :; do :; done' &
  PIDS+=("$!")
done
[ "$BUSY_LOOPS" -eq 0 ] || log "$BUSY_LOOPS busy loops running for the whole run"

proxy_pids() { # the proxy's processes (Kamailio: the main process and every child it forked)
  case "$1" in
    kamailio) echo "$KAM_PID" $(pgrep -P "$KAM_PID" || true) ;;
    trunkgate) echo "$GW_PID_gw" ;;
  esac
}
redis_pid() { case "$1" in kamailio) echo "$KAM_REDIS_PID" ;; trunkgate) echo "$TG_REDIS_PID" ;; esac; }
target() { case "$1" in kamailio) echo "127.0.0.1:$KAM_PORT" ;; trunkgate) echo "127.0.0.1:$GW_PORT" ;; esac; }

mem_mb() { awk -v k="$1:" '$1 == k {printf "%.0f", $2 / 1024}' "/proc/$2/status"; } # mem_mb VmRSS|VmHWM PID

# run_step PROXY NAME RATE SECONDS: prints one line; returns 1 when the step fails.
run_step() {
  local proxy=$1 name=$2 rate=$3 secs=$4 dir="$WORK/$1-$2"
  local p0 r0 p1 r1 load0 load1 m0=() m1=()
  [ "$proxy" = trunkgate ] && read -ra m0 <<<"$(gw_metrics)"
  p0=$(ticks $(proxy_pids "$proxy")); r0=$(ticks "$(redis_pid "$proxy")"); load0=$(cut -d' ' -f1 /proc/loadavg)
  sipp_caller "$dir" "$(target "$proxy")" "$rate" "$secs"
  p1=$(ticks $(proxy_pids "$proxy")); r1=$(ticks "$(redis_pid "$proxy")"); load1=$(cut -d' ' -f1 /proc/loadavg)
  [ "$proxy" = trunkgate ] && read -ra m1 <<<"$(gw_metrics)"
  local stat rtt created failed offered verdict=pass calls=$((rate * secs))
  stat=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$dir/uac_stat.csv" 2>&1 || true)
  rtt=$(python3 "$REPO_DIR/bench/sipp_analyze.py" rtt "$dir"/uac_*_rtt.csv 2>&1 || true)
  # failed = not successful: SIPp's own failed counter leaves out calls still unfinished when it timed out
  created=$(field created "$stat"); ok=$(field successful "$stat"); failed=$(( ${created:-0} - ${ok:-0} ))
  offered=$(offered_rate "$dir")
  if [ -z "$created" ] || [ "$created" -ne "$calls" ]; then verdict="FAIL(created ${created:-?} of $calls)"
  elif ! python3 -c "import sys; sys.exit(0 if $failed <= $MAX_FAIL * $created else 1)"; then
    verdict="FAIL(failed $failed > $MAX_FAIL x $created)"
  elif ! python3 -c "import sys; sys.exit(0 if $offered >= 0.95 * $rate else 1)"; then
    verdict="FAIL(SIPp offered only $offered/s)"
  fi
  local line
  printf -v line '%-9s %-6s rate=%s/s calls=%s failed=%s offered=%s/s | cpu/call %s=%.3f ms redis=%.3f ms | INVITE->200 p50=%s p99=%s max=%s | load1 %s -> %s | %s' \
    "$proxy" "$name" "$rate" "${created:-?}" "${failed:-?}" "$offered" "$proxy" \
    "$(echo "($p1 - $p0) * 1000 / $HZ / ${created:-1}" | bc -l)" "$(echo "($r1 - $r0) * 1000 / $HZ / ${created:-1}" | bc -l)" \
    "$(field p50 "$rtt")" "$(field p99 "$rtt")" "$(field max "$rtt")" "$load0" "$load1" "$verdict"
  if [ "$proxy" = trunkgate ]; then
    printf -v line '%s | alloc/call %.1f KiB, GC pauses/call %.3f ms | shed %s, redis_unavailable %s | rss %s MB (peak %s)' \
      "$line" "$(echo "(${m1[0]} - ${m0[0]}) / 1024 / ${created:-1}" | bc -l)" \
      "$(echo "(${m1[1]} - ${m0[1]}) * 1000 / ${created:-1}" | bc -l)" "$((m1[2] - m0[2]))" "$((m1[3] - m0[3]))" \
      "$(mem_mb VmRSS "$GW_PID_gw")" "$(mem_mb VmHWM "$GW_PID_gw")"
  fi
  echo "$line"
  STEP_LINES+=("$line")
  grep -q 'failures=' <<<"$stat" && echo "          ${stat#*failures=}"
  sleep 3   # the carrier's last calls end (its scenario pauses 1 s after the BYE), retransmissions stop
  [ "$verdict" = pass ]
}

echo "# rates: $RATES; $STEP_S s per step per proxy; warm-up $WARMUP_RATE/s for $WARMUP_S s each; kamailio $(kamailio -v | head -1 | awk '{print $2, $3}') children=$KAM_CHILDREN busy_loops=$BUSY_LOOPS"
run_step kamailio warmup "$WARMUP_RATE" "$WARMUP_S" || echo "# kamailio warm-up did not pass"
run_step trunkgate warmup "$WARMUP_RATE" "$WARMUP_S" || echo "# trunkgate warm-up did not pass"
declare -A best=([kamailio]=0 [trunkgate]=0) stopped=()
STEP_LINES=()
for rate in $RATES; do
  for proxy in kamailio trunkgate; do
    [ -n "${stopped[$proxy]:-}" ] && continue
    if run_step "$proxy" "$rate" "$rate" "$STEP_S"; then best[$proxy]=$rate; else stopped[$proxy]=$rate; fi
  done
done
for proxy in kamailio trunkgate; do
  note="passed every step"; [ -n "${stopped[$proxy]:-}" ] && note="failed at ${stopped[$proxy]}/s"
  echo "# $proxy: highest passing rate ${best[$proxy]} calls/s ($note)"
done
if [ "${best[kamailio]}" -gt 0 ]; then
  echo "# ratio trunkgate / kamailio (highest passing rates): $(echo "scale=2; ${best[trunkgate]} / ${best[kamailio]}" | bc)"
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_uas uas 0
stop_gateway gw || true
echo "# trunkgate calls by final status: $(grep -o 'final=[0-9]*' "$WORK/gw.log" | sort | uniq -c | tr -s ' ' | paste -sd ',')"
summary=()
for proxy in kamailio trunkgate; do
  note="passed every step"; [ -n "${stopped[$proxy]:-}" ] && note="failed at ${stopped[$proxy]}/s"
  summary+=("$proxy: highest passing rate ${best[$proxy]} calls/s ($note)")
done
[ "${best[kamailio]}" -eq 0 ] || summary+=("ratio trunkgate / kamailio: $(echo "scale=2; ${best[trunkgate]} / ${best[kamailio]}" | bc)")
results_append sipp-vs-kamailio.sh \
  "$(results_command bench/sipp-vs-kamailio.sh RATES STEP_S WARMUP_RATE WARMUP_S MAX_FAIL KAM_CHILDREN BUSY_LOOPS)" \
  "${summary[@]}" "${STEP_LINES[@]}"
