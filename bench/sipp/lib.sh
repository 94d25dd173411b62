# Shared helpers of bench/sipp-*.sh (bash; sourced, not run). Every process started here is recorded in
# PIDS and killed by sipp_cleanup (installed as the EXIT trap by sipp_init), so a script that fails or is
# interrupted leaves nothing behind.

SIPP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SIPP_DIR/../.." && pwd)
JAR=${JAR:-$REPO_DIR/target/trunkgate.jar}
JAVA=${JAVA:-java}
PIDS=()
# PROXY_CPUS / LOAD_CPUS (e.g. 0 and 1): the proxy under test runs on the first set of CPUs, this script and what it
# starts besides (SIPp callers and carriers, a standalone redis-server) on the second, so neither starves the
# other (an embedded redis-server runs with its gateway); unset: no pinning (all processes share every core).
PROXY_RUN=${PROXY_CPUS:+taskset -c $PROXY_CPUS}

log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# sipp_init PREFIX: a fresh work directory in $WORK and the cleanup trap.
sipp_init() {
  for tool in sipp python3 "$JAVA"; do
    command -v "$tool" >/dev/null 2>&1 || { log "missing: $tool"; exit 2; }
  done
  [ -f "$JAR" ] || { log "no $JAR: build it first (mvn -q -o package -DskipTests)"; exit 2; }
  if [ -n "${LOAD_CPUS:-}" ]; then taskset -pc "$LOAD_CPUS" $$ >/dev/null; fi
  WORK=${WORK:-$(mktemp -d "/tmp/$1.XXXXXX")}
  mkdir -p "$WORK"
  trap sipp_cleanup EXIT
  trap 'exit 130' INT TERM
}

# sipp_tee NAME: from here on, everything the script prints also goes to $REPO_DIR/target/NAME.txt.
sipp_tee() {
  mkdir -p "$REPO_DIR/target"
  exec > >(tee "$REPO_DIR/target/$1.txt") 2>&1
}

sipp_cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  done
  PIDS=()
}

# free_port [HOST]: a port below the kernel's ephemeral range that nobody has bound on HOST right now, for UDP
# and TCP. Below the ephemeral range so that sockets the kernel numbers itself (DNS resolvers, clients) cannot
# take it between the pick and the bind.
free_port() {
  python3 - "${1:-127.0.0.1}" <<'EOF'
import random, socket, sys
host = sys.argv[1]
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except OSError:
    low = 32768
for _ in range(200):
    port = random.randint(20000, max(20001, low - 1))
    try:
        for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
            s = socket.socket(socket.AF_INET, kind)
            try:
                s.bind((host, port))
            finally:
                s.close()
        print(port)
        sys.exit(0)
    except OSError:
        continue
sys.exit("no free port found")
EOF
}

free_sip_port() { free_port "$1"; }

# descendant_named PID NAME: pid of the first process named NAME below PID (any depth), or nothing.
descendant_named() {
  local child
  for child in $(pgrep -P "$1"); do
    if [ "$(cat "/proc/$child/comm" 2>/dev/null)" = "$2" ]; then echo "$child"; return 0; fi
    descendant_named "$child" "$2" && return 0
  done
  return 1
}

# start_gateway NAME CONF [ENV=VALUE...]: runs the jar in the background (output in $WORK/NAME.log), waits
# until it is ready (120 s at most) and sets GW_PID_<NAME> and GW_REDIS_PID_<NAME> (the embedded redis-server
# child, empty in standalone mode).
start_gateway() {
  launch_gateway "$@" && await_gateway "$1"
}

# launch_gateway NAME CONF [ENV=VALUE...]: start_gateway without the wait; sets GW_PID_<NAME>. The gateway runs as
# users run it, through bin/trunkgate (its JVM options; JAVA_OPTS adds to them), without the start cache (MODE=cold
# of sipp-vs-kamailio.sh measures that); the launcher execs the JVM, so the pid is the gateway's.
launch_gateway() {
  local name=$1 conf=$2; shift 2
  local java_home
  java_home=$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")
  $PROXY_RUN env JAVA_HOME="$java_home" JAVA_OPTS="${JAVA_OPTS:-}" TRUNKGATE_JAR="$JAR" TRUNKGATE_START_CACHE=off \
    "$@" "$REPO_DIR/bin/trunkgate" run --config "$conf" >"$WORK/$name.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  printf -v "GW_PID_$name" '%s' "$pid"
}

# gateway_ready NAME: whether gateway NAME's log says it is ready: listening and past the start-up warm-up (the
# admin server comes up after it; until then new INVITEs get 503 "gateway starting").
gateway_ready() {
  grep -q 'listening on' "$WORK/$1.log" && grep -q 'admin HTTP on' "$WORK/$1.log"
}

# await_gateway NAME: waits until the gateway launch_gateway started is ready (120 s at most), then sets
# GW_REDIS_PID_<NAME> and GW_REDIS_PORT_<NAME> (its embedded redis-server, empty in other modes).
await_gateway() {
  local name=$1 pidvar="GW_PID_$1"
  local pid=${!pidvar}
  for _ in $(seq 1200); do
    if gateway_ready "$name"; then
      printf -v "GW_REDIS_PID_$name" '%s' "$(descendant_named "$pid" redis-server)"
      printf -v "GW_REDIS_PORT_$name" '%s' \
        "$(grep -o 'embedded redis-server started on [0-9.]*:[0-9]*' "$WORK/$name.log" | grep -o '[0-9]*$' || true)"
      log "gateway $name (pid $pid) up: $(grep -h 'listening on\|redis-server started' "$WORK/$name.log" | sed 's/.* - //' | paste -sd ';')"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      log "gateway $name exited during start-up:"; cat "$WORK/$name.log" >&2; return 1
    fi
    sleep 0.1
  done
  log "gateway $name was not ready within 120 s"; tail -20 "$WORK/$name.log" >&2
  return 1
}

# steady_caller PORT RATE SECS: one SIPp caller (uac.xml) at RATE calls/s for SECS seconds against 127.0.0.1:PORT,
# in the background, its statistics in $WORK/uac/uac_stat.csv; sets UAC to its pid.
steady_caller() {
  local port=$1 rate=$2 secs=$3
  mkdir -p "$WORK/uac"
  (cd "$WORK/uac" && exec timeout "$((secs + 30))" sipp -sf "$SIPP_DIR/uac.xml" -i 127.0.0.1 -p "$(free_sip_port 127.0.0.1)" \
      "127.0.0.1:$port" -s 4420555 -r "$rate" -m "$((rate * secs))" -l $((rate * 20)) -d 0 -nostdin \
      -buff_size 4194304 -timeout "$((secs + 20))s" -trace_stat -stf uac_stat.csv -fd 1 >uac.out 2>&1) &
  UAC=$!
  PIDS+=("$UAC")
}

# start_vs_gateway: the bench/sipp-vs-kamailio.sh set-up for one gateway: a standalone redis-server of its own,
# the SIPp carrier on 127.0.0.2 and the gateway with conf-vs (admission + pacing, carrier burst = 1), with
# JAVA_OPTS as set. Sets GW (the gateway's pid), GW_PORT and UAS_PORT.
start_vs_gateway() {
  start_redis redis-tg
  UAS_PORT=$(free_sip_port 127.0.0.2)
  GW_PORT=$(free_sip_port 127.0.0.1)
  sipp_uas uas 127.0.0.2 "$UAS_PORT" -timeout 3600s
  start_gateway gw "$SIPP_DIR/conf-vs/gateway.conf" TG_SIP_PORT="$GW_PORT" TG_ADMIN_PORT="$(free_port 127.0.0.1)" \
    TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" TG_REDIS="redis://127.0.0.1:$REDIS_PORT"
  GW=$GW_PID_gw
}

# stop_gateway NAME: SIGTERM, then checks that the JVM exits within 20 s and that its embedded
# redis-server (if any) is gone. Returns non-zero otherwise.
stop_gateway() {
  local name=$1 pidvar="GW_PID_$1" redisvar="GW_REDIS_PID_$1" portvar="GW_REDIS_PORT_$1"
  local pid=${!pidvar} redis=${!redisvar:-} redis_port=${!portvar:-}
  kill -TERM "$pid" 2>/dev/null || { log "gateway $name (pid $pid) was not running"; return 1; }
  local status=0
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    log "gateway $name (pid $pid) still running 20 s after SIGTERM"; return 1
  fi
  wait "$pid" 2>/dev/null || status=$?
  if [ -n "$redis" ] && kill -0 "$redis" 2>/dev/null; then
    log "embedded redis-server (pid $redis) of gateway $name survived it"; return 1
  fi
  if [ -n "$redis_port" ] && ss -Htln "sport = :$redis_port" | grep -q .; then
    log "port $redis_port of the embedded redis-server of gateway $name is still open"; return 1
  fi
  if [ -n "$redis_port" ] && [ -z "$redis" ]; then
    log "embedded redis-server of gateway $name (port $redis_port) was not found among its processes"; return 1
  fi
  log "gateway $name stopped (exit status $status${redis:+; embedded redis-server pid $redis, port $redis_port, gone})"
  # 143 = killed by SIGTERM without a clean exit; the gateway's shutdown hook exits 0 after closing.
  [ "$status" -eq 0 ] || [ "$status" -eq 143 ]
}

# start_redis [NAME]: a redis-server on a free port for standalone mode (log $WORK/NAME.log, default "redis");
# sets REDIS_PORT and REDIS_PID.
start_redis() {
  command -v redis-server >/dev/null 2>&1 || { log "missing: redis-server"; return 2; }
  local logf="$WORK/${1:-redis}.log"
  REDIS_PORT=$(free_port 127.0.0.1)
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --daemonize no \
    --dir "$WORK" >"$logf" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  for _ in $(seq 100); do
    grep -q 'Ready to accept connections' "$logf" && { log "redis-server pid $REDIS_PID on port $REDIS_PORT"; return 0; }
    sleep 0.1
  done
  log "redis-server did not start"; cat "$logf" >&2; return 1
}

# sipp_uas NAME IP PORT [sipp options...]: the carrier UAS in the background (files $WORK/NAME*); sets
# UAS_PID_<NAME>. INVITE arrivals go to $WORK/NAME_invites.log. UAS_SCENARIO: another scenario than uas.xml.
sipp_uas() {
  local name=$1 ip=$2 port=$3; shift 3
  (cd "$WORK" && exec sipp -sf "${UAS_SCENARIO:-$SIPP_DIR/uas.xml}" -i "$ip" -p "$port" -nostdin -buff_size 4194304 \
      -trace_logs -log_file "${name}_invites.log" -trace_err -error_file "${name}_errors.log" \
      -trace_stat -stf "${name}_stat.csv" -fd 1 -trace_screen -screen_file "${name}_screen.log" "$@" \
      >"$WORK/${name}.out" 2>&1) &
  local pid=$!
  PIDS+=("$pid")
  printf -v "UAS_PID_$name" '%s' "$pid"
  for _ in $(seq 50); do
    sleep 0.1
    kill -0 "$pid" 2>/dev/null || { log "UAS $name exited:"; head -3 "$WORK/${name}.out" >&2; return 1; }
    if ss -Hulnp "sport = :$port" 2>/dev/null | grep -q "pid=$pid,"; then return 0; fi
  done
  log "UAS $name does not listen on $ip:$port"; return 1
}

# stop_uas NAME [SECONDS]: lets the UAS finish its -m calls for up to SECONDS (default 5), then SIGUSR1
# (SIPp's graceful quit), then SIGKILL.
stop_uas() {
  local pidvar="UAS_PID_$1" wait_s=${2:-5}
  local pid=${!pidvar}
  for _ in $(seq $((wait_s * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -USR1 "$pid" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

# start_wire NAME IP PORT: when tshark is installed (and NO_WIRE is unset), captures the UDP datagrams to IP:PORT
# on the loopback interface into $WORK/NAME.pcap; sets WIRE_PID_<NAME>. Returns 1 without tshark.
start_wire() {
  local name=$1 ip=$2 port=$3
  [ -z "${NO_WIRE:-}" ] && command -v tshark >/dev/null 2>&1 || return 1
  tshark -i lo -f "udp and dst host $ip and dst port $port" -w "$WORK/$name.pcap" -q >"$WORK/$name.tshark" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  printf -v "WIRE_PID_$name" '%s' "$pid"
  for _ in $(seq 100); do
    grep -q 'Capturing on' "$WORK/$name.tshark" 2>/dev/null && return 0
    sleep 0.1
  done
  log "tshark $name did not start:"; cat "$WORK/$name.tshark" >&2; return 1
}

# stop_wire NAME: ends the capture and writes each INVITE's kernel arrival time to $WORK/NAME_invites.log in
# bench/sipp/uas.xml's format ("INVITE - - <epoch.micros> <Call-ID>"), so sipp_analyze.py reads both alike.
stop_wire() {
  local pidvar="WIRE_PID_$1"
  kill -INT "${!pidvar}" 2>/dev/null || true
  wait "${!pidvar}" 2>/dev/null || true
  tshark -r "$WORK/$1.pcap" -Y 'sip.Method == "INVITE"' -T fields -e frame.time_epoch -e sip.Call-ID 2>/dev/null \
    | awk '{printf "INVITE - - %.6f %s\n", $1, $2}' >"$WORK/$1_invites.log"
}

machine_line() {
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc) proxy_cpus=${PROXY_CPUS:-all} load_cpus=${LOAD_CPUS:-all} loadavg=\"$(cut -d' ' -f1-3 /proc/loadavg)\" $(sipp -v 2>/dev/null | grep -o 'SIPp v[^ ]*' | head -1) java=$($JAVA -version 2>&1 | head -1 | tr -d '\"')"
}
