#!/usr/bin/env bash
# Soak under faults (bench/README.md, soak.sh): two gateways from the built jar sharing a Redis master and replica
# under Sentinel (or a Redis Cluster), SIPp callers for three peers at and above their limits, two paced SIPp
# carriers, calls of random lengths (some cancelled while ringing), and a schedule of faults; then
# bench/lib/soak_checks.py checks the call records, the carriers' arrivals, the leases in Redis, the gateways'
# metrics, heap, descriptors and logs.
#
#   bench/soak.sh MINUTES          (SOAK_MINUTES when no argument; 3 by default)
#   TOPOLOGY=cluster bench/soak.sh MINUTES    a 3-master 3-replica Redis Cluster instead of Sentinel
#
# Exit status 0 only when every check passes.
set -euo pipefail
# The whole script is one block, read before it runs: editing the file during a run cannot change the run.
{
MINUTES=${1:-${SOAK_MINUTES:-3}}
TOPOLOGY=${TOPOLOGY:-sentinel}
SHORT=$([ "$MINUTES" -le 5 ] && echo 1 || echo 0)
RATE=${RATE:-$([ "$SHORT" = 1 ] && echo 36 || echo 300)}          # calls/s offered by the steady callers
CALL_MIN_S=${CALL_MIN_S:-$([ "$SHORT" = 1 ] && echo 2 || echo 10)}
CALL_MAX_S=${CALL_MAX_S:-$([ "$SHORT" = 1 ] && echo 20 || echo 120)}
CANCEL_SHARE=${CANCEL_SHARE:-0.05}
RING_MS=${RING_MS:-300}
LEASE_S=${LEASE_S:-10}
WARM_UP_CALLS=${WARM_UP_CALLS:-500}
# the longest a gateway's warm-up takes (30 s on a busy 2-core box, whose compiler is never idle): a short run's 36
# calls/s need less, and gateway 2 is killed three quarters into the load and must be ready again before it ends
WARM_UP_MAX_TIME=${WARM_UP_MAX_TIME:-$([ "$SHORT" = 1 ] && echo 10s || echo 30s)}
SIPP_DIR=$(cd "$(dirname "$0")/sipp" && pwd)
# shellcheck source=bench/sipp/lib.sh
source "$SIPP_DIR/lib.sh"
# shellcheck source=bench/lib/results.sh
source "$REPO_DIR/bench/lib/results.sh"

# Each peer's limit is a third of the offered rate: p1 is offered its limit (half through each gateway), p2 1.5
# times it, p3 half of it; each carrier takes 1.5 times a peer's limit, so ca is full and cb takes the rest.
PEER_MAX=$((RATE / 3))
[ "$PEER_MAX" -ge 2 ] && [ $((PEER_MAX % 2)) -eq 0 ] || { log "RATE must be a multiple of 6"; exit 2; }
CARRIER_CPS=$((PEER_MAX * 3 / 2))
CARRIER_BURST=${CARRIER_BURST:-5}
PEER_CONCURRENT=$((PEER_MAX * (CALL_MIN_S + CALL_MAX_S) * 3 / 4 + 20))
LOAD_S=$((MINUTES * 60))

case $TOPOLOGY in sentinel|cluster) ;; *) log "TOPOLOGY must be sentinel or cluster"; exit 2 ;; esac
command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || { log "missing: redis-server, redis-cli"; exit 2; }
command -v jcmd >/dev/null 2>&1 || { log "missing: jcmd (a JDK)"; exit 2; }
sipp_init soak
[ -n "${KEEP:-}" ] || trap 'sipp_cleanup; rm -rf "$WORK"' EXIT
sipp_tee bench-soak
log "soak: $MINUTES min, Redis $TOPOLOGY, $RATE calls/s, calls ${CALL_MIN_S}-${CALL_MAX_S} s, warm-up at most $WARM_UP_MAX_TIME, peers at $PEER_MAX/s, carriers at $CARRIER_CPS cps burst $CARRIER_BURST; work dir $WORK"
log "machine: $(machine_line)"
mkdir -p "$WORK/samples"
FAULTS=$WORK/faults.tsv
: >"$FAULTS"
now() { date +%s.%N | cut -c1-14; }
# fault KIND START END [DETAIL]: one line of the schedule as it happened (epoch seconds)
fault() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$FAULTS"; log "fault $1 ${4:-} ($(awk -v a="$2" -v b="$3" 'BEGIN{printf "%.1f s", b-a}'))"; }

# --- Redis: nodes behind the fault proxy; one Sentinel, or a cluster --------------------------------------------
# Everyone reaches a node through the proxy (bench/lib/redis_proxy.py): the gateways, a replica's link to its
# master and Sentinel, since a node announces the proxy's port (replica-announce-port, cluster-announce-port):
# Sentinel monitors it, and a cluster's redirects and CLUSTER SLOTS name it. The cluster bus (gossip, failure
# detection, elections) runs on ports of its own, outside the proxy: the faults delay commands and replication,
# as with Sentinel, not the cluster's view of which node is up.
NODES=$([ "$TOPOLOGY" = cluster ] && echo 6 || echo 2)
NODE_PORT=() PROXY_PORT=() BUS_PORT=() NODE_PID=() PAIRS=()
for ((i = 0; i < NODES; i++)); do
  NODE_PORT[i]=$(free_port); PROXY_PORT[i]=$(free_port); BUS_PORT[i]=$(free_port)
  PAIRS+=("${PROXY_PORT[i]}:${NODE_PORT[i]}")
done
PROXY_CTL=$WORK/proxy.ctl
echo "0 0" >"$PROXY_CTL"
python3 "$REPO_DIR/bench/lib/redis_proxy.py" --control "$PROXY_CTL" "${PAIRS[@]}" >"$WORK/proxy.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 100); do grep -q ready "$WORK/proxy.log" && break; sleep 0.1; done
CLUSTER_NODE_TIMEOUT_MS=3000
# start_node I [redis-server options]: node I on its port, empty (no persistence; a replica's full sync writes
# an RDB file, which a restart must not load). A cluster node keeps its nodes.conf: it comes back as itself.
start_node() {
  local i=$1; shift
  local cluster=()
  [ "$TOPOLOGY" = sentinel ] || cluster=(--cluster-enabled yes --cluster-config-file nodes.conf
    --cluster-node-timeout "$CLUSTER_NODE_TIMEOUT_MS" --cluster-port "${BUS_PORT[i]}" --cluster-announce-ip 127.0.0.1
    --cluster-announce-port "${PROXY_PORT[i]}" --cluster-announce-bus-port "${BUS_PORT[i]}")
  mkdir -p "$WORK/redis-$i"
  rm -f "$WORK/redis-$i/dump.rdb"
  redis-server --bind 127.0.0.1 --port "${NODE_PORT[i]}" --save '' --appendonly no --dir "$WORK/redis-$i" \
    --replica-announce-ip 127.0.0.1 --replica-announce-port "${PROXY_PORT[i]}" "${cluster[@]}" "$@" \
    >>"$WORK/redis-$i.log" 2>&1 &
  NODE_PID[i]=$!
  PIDS+=("${NODE_PID[i]}")
  disown "${NODE_PID[i]}"  # killed on purpose: no job notice
  for _ in $(seq 100); do redis-cli -p "${NODE_PORT[i]}" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  log "redis node $i did not start"; return 1
}
# node_of PROXY_PORT: the index of the node behind it
node_of() { local i; for ((i = 0; i < NODES; i++)); do [ "${PROXY_PORT[i]}" = "$1" ] && echo "$i"; done; return 0; }
if [ "$TOPOLOGY" = sentinel ]; then
  start_node 0
  start_node 1 --replicaof 127.0.0.1 "${PROXY_PORT[0]}"
  SENTINEL_PORT=$(free_port)
  printf '%s\n' "bind 127.0.0.1" "port $SENTINEL_PORT" "dir $WORK" \
    "sentinel monitor tgsoak 127.0.0.1 ${PROXY_PORT[0]} 1" "sentinel down-after-milliseconds tgsoak 3000" \
    "sentinel failover-timeout tgsoak 10000" >"$WORK/sentinel.conf"
  redis-server "$WORK/sentinel.conf" --sentinel >"$WORK/sentinel.log" 2>&1 &
  PIDS+=("$!")
  # master_node: the index of the node Sentinel names master
  master_node() {
    local port
    port=$(redis-cli -p "$SENTINEL_PORT" sentinel get-master-addr-by-name tgsoak 2>/dev/null | sed -n 2p)
    if [ "$port" = "${PROXY_PORT[1]}" ]; then echo 1; else echo 0; fi
  }
  for _ in $(seq 100); do
    [ "$(redis-cli -p "${NODE_PORT[1]}" info replication | grep -c 'master_link_status:up')" = 1 ] &&
      redis-cli -p "$SENTINEL_PORT" sentinel replicas tgsoak 2>/dev/null | grep -q "${PROXY_PORT[1]}" && break
    sleep 0.1
  done
  REDIS_MODE=sentinel REDIS_ADDRESS="redis://127.0.0.1:$SENTINEL_PORT"
  log "redis nodes on ${NODE_PORT[*]} behind proxy ports ${PROXY_PORT[*]}, sentinel on $SENTINEL_PORT"
else
  for ((i = 0; i < NODES; i++)); do start_node "$i"; done
  SEEDS=()
  for ((i = 0; i < NODES; i++)); do SEEDS+=("127.0.0.1:${PROXY_PORT[i]}"); done
  redis-cli --cluster create "${SEEDS[@]}" --cluster-replicas 1 --cluster-yes >"$WORK/cluster-create.log" 2>&1 ||
    { log "redis cluster not created: $(tail -3 "$WORK/cluster-create.log")"; exit 1; }
  for _ in $(seq 300); do
    up=0
    for ((i = 0; i < NODES; i++)); do
      redis-cli -p "${NODE_PORT[i]}" info replication | grep -q 'master_link_status:up' && up=$((up + 1))
    done
    [ "$up" = 3 ] && redis-cli -p "${NODE_PORT[0]}" cluster info | grep -q 'cluster_state:ok' && break
    sleep 0.1
  done
  # master_node: the index of the master serving p1's keys as a node that is up sees it (p1's sliding log: a
  # fault on that master reaches a limit)
  master_node() {
    local slot i port
    slot=$(redis-cli -p "${NODE_PORT[0]}" cluster keyslot '{p:p1}' 2>/dev/null ||
      redis-cli -p "${NODE_PORT[1]}" cluster keyslot '{p:p1}' 2>/dev/null || true)
    for ((i = 0; i < NODES; i++)); do
      port=$({ redis-cli -p "${NODE_PORT[i]}" cluster nodes 2>/dev/null || true; } | awk -v s="$slot" '
        $3 ~ /master/ && $3 !~ /fail/ { for (f = 9; f <= NF; f++) { n = split($f, r, "-"); if (n == 1) r[2] = r[1]
          if (s + 0 >= r[1] + 0 && s + 0 <= r[2] + 0) { split($2, a, "[:@]"); print a[2]; exit } } }')
      [ -n "$port" ] && { node_of "$port"; return 0; }
    done
    return 0
  }
  printf 'cluster\t%s\n' "$CLUSTER_NODE_TIMEOUT_MS" >"$WORK/topology"
  REDIS_MODE=cluster REDIS_ADDRESS="redis://127.0.0.1:${PROXY_PORT[0]}"
  log "redis cluster: nodes on ${NODE_PORT[*]} behind proxy ports ${PROXY_PORT[*]}, p1's master node $(master_node)"
fi

# --- carriers and gateways --------------------------------------------------------------------------------------
sed "s/RING_MS/$RING_MS/" "$SIPP_DIR/soak-uas.xml" >"$WORK/soak-uas.xml"
sed "s/CALL_MIN_MS/$((CALL_MIN_S * 1000))/; s/CALL_MAX_MS/$((CALL_MAX_S * 1000))/; s/CANCEL_SHARE/$CANCEL_SHARE/" \
  "$SIPP_DIR/soak-uac.xml" >"$WORK/soak-uac.xml"
CA_PORT=$(free_sip_port 127.0.0.2) CB_PORT=$(free_sip_port 127.0.0.2)
UAS_SCENARIO=$WORK/soak-uas.xml sipp_uas ca 127.0.0.2 "$CA_PORT" -timeout "$((LOAD_S + CALL_MAX_S + 600))s"
UAS_SCENARIO=$WORK/soak-uas.xml sipp_uas cb 127.0.0.2 "$CB_PORT" -timeout "$((LOAD_S + CALL_MAX_S + 600))s"
# The INVITEs as they cross the loopback to the carriers, timed by the kernel as they are sent (tcpdump): SIPp's
# arrival times are when it read them, late by however long it waited for a core. Without tcpdump the checks fall
# back on SIPp's times.
printf 'ca %s\ncb %s\n' "$CA_PORT" "$CB_PORT" >"$WORK/carriers.ports"
CAPTURE_PID=
if command -v tcpdump >/dev/null 2>&1; then
  tcpdump -i lo -n -B 65536 -s 0 -w "$WORK/carriers.pcap" \
    "udp and dst host 127.0.0.2 and (dst port $CA_PORT or dst port $CB_PORT) and udp[8:4] = 0x494e5649" \
    2>"$WORK/tcpdump.log" &
  CAPTURE_PID=$!
  PIDS+=("$CAPTURE_PID")
  for _ in $(seq 100); do grep -q "listening on" "$WORK/tcpdump.log" && break; sleep 0.1; done
else
  log "no tcpdump: the carrier checks use SIPp's arrival times"
fi
cp -r "$SIPP_DIR/conf-soak" "$WORK/conf"
GW_PORT=() ADMIN_PORT=()
for g in 1 2; do GW_PORT[g]=$(free_sip_port 127.0.0.1); ADMIN_PORT[g]=$(free_port); done
GW_START=(0 0 0)
# gw_env NAME G: GW_ENV, what the configuration of gateway G (1 or 2) as process NAME reads from the environment
gw_env() {
  GW_ENV=(TG_INSTANCE_ID="gw$2" TG_SIP_PORT="${GW_PORT[$2]}" TG_ADMIN_PORT="${ADMIN_PORT[$2]}"
    TG_REDIS_MODE="$REDIS_MODE" TG_REDIS="$REDIS_ADDRESS" TG_LEASE_TIME="${LEASE_S}s"
    TG_RECORDS="$WORK/records-$1.jsonl" TG_WARM_UP_CALLS="$WARM_UP_CALLS" TG_WARM_UP_MAX_TIME="$WARM_UP_MAX_TIME"
    TG_PEER_MAX="$PEER_MAX" TG_PEER_CONCURRENT="$PEER_CONCURRENT" TG_CA_URI="sip:127.0.0.2:$CA_PORT;transport=udp"
    TG_CB_URI="sip:127.0.0.2:$CB_PORT;transport=udp" TG_CA_CPS="$CARRIER_CPS" TG_CB_CPS="$CARRIER_CPS"
    TG_CARRIER_BURST="$CARRIER_BURST")
}
# launch NAME G: gateway G (1 or 2) as process NAME, its records in records-NAME.jsonl
launch() {
  gw_env "$1" "$2"
  launch_gateway "$1" "$WORK/conf/gateway.conf" "${GW_ENV[@]}"
}
# the gateways' current pids, for the samplers: "NAME PID" per line
pids_file() { { echo "gw1 $GW_PID_gw1"; [ -z "${GW2_NAME:-}" ] || echo "$GW2_NAME ${!GW2_PIDVAR}"; } >"$WORK/gw.pids"; }
printf 'gw1 %s\ngw2 %s\n' "${GW_PORT[1]}" "${GW_PORT[2]}" >"$WORK/gw.ports"
launch gw1 1
launch gw2 2
await_gateway gw1
await_gateway gw2
GW2_NAME=gw2 GW2_PIDVAR=GW_PID_gw2
pids_file

# --- samplers ---------------------------------------------------------------------------------------------------
# heap_fds NAME PID: "TIME NAME HEAP_USED_KB FDS" after a full GC (both commands in one jcmd, a JVM start each)
printf 'GC.run\nGC.heap_info\n' >"$WORK/heap.jcmd"
heap_fds() {
  local used
  used=$(jcmd "$2" -f "$WORK/heap.jcmd" 2>/dev/null | grep -o 'used [0-9]*K' | head -1 | grep -o '[0-9]*') || return 0
  [ -z "$used" ] || printf '%s\t%s\t%s\t%s\n' "$(now)" "$1" "$used" "$(ls "/proc/$2/fd" 2>/dev/null | wc -l)"
}
# the baseline with no call up: after the warm-up's transactions have lingered out (sip.transaction-linger, 5 s)
# and what else it opened is closed (taken once the transactions were gone, a baseline counted 58 open descriptors,
# the same gateway 49 after the load)
sleep 8
heap_fds gw1 "$GW_PID_gw1" >"$WORK/samples/idle.tsv"
# heap after a full GC and open descriptors of each gateway every 10 s
(
  while sleep 10; do
    while read -r name pid; do
      kill -0 "$pid" 2>/dev/null && heap_fds "$name" "$pid"
    done <"$WORK/gw.pids"
  done >"$WORK/samples/heap_fds.tsv"
) &
PIDS+=("$!")
# the peers' sliding logs every 250 ms and the leases every 5 s, read from the master (bench/lib/soak_sampler.py)
SAMPLER=(python3 "$REPO_DIR/bench/lib/soak_sampler.py" --prefix tgsoak --nodes "$(IFS=,; echo "${PAIRS[*]}")")
if [ "$TOPOLOGY" = sentinel ]; then SAMPLER+=(--sentinel "$SENTINEL_PORT" --master tgsoak); fi
"${SAMPLER[@]}" --out "$WORK/samples" &
PIDS+=("$!")

# --- callers ----------------------------------------------------------------------------------------------------
# caller NAME IP GATEWAY RATE SECS: a SIPp caller from IP (its peer) to gateway 1 or 2. A call whose INVITE has no
# final answer 40 s after it was sent (-recv_timeout: its gateway was killed after the 100) fails, so a caller
# ends with its last call.
caller() {
  local name=$1 ip=$2 g=$3 rate=$4 secs=$5
  (cd "$WORK" && exec sipp -sf "$WORK/soak-uac.xml" -i "$ip" -p "$(free_sip_port "$ip")" "127.0.0.1:${GW_PORT[g]}" \
      -s 4420555 -r "$rate" -rp 10000 -m "$((rate * secs / 10))" -l $((RATE * CALL_MAX_S * 4)) -nostdin \
      -buff_size 4194304 -timeout "$((secs + CALL_MAX_S + 180))s" -recv_timeout 40000 \
      -trace_logs -log_file "${name}_calls.log" -trace_err -error_file "${name}_errors.log" -trace_stat -stf "${name}_stat.csv" -fd 10 \
      >"$WORK/$name.out" 2>&1) &
  PIDS+=("$!")
  CALLERS+=("$!")
}
CALLERS=()
T0=$(now)
echo "$T0" >"$WORK/t0"
# rates in calls per 10 s: p1 at its limit (half per gateway), p2 at 1.5 times it, p3 at half
caller p1a 127.0.1.1 1 $((PEER_MAX * 5)) "$LOAD_S"
caller p1b 127.0.1.1 2 $((PEER_MAX * 5)) "$LOAD_S"
caller p2 127.0.1.2 1 $((PEER_MAX * 15)) "$LOAD_S"
caller p3 127.0.1.3 2 $((PEER_MAX * 5)) "$LOAD_S"

# --- the fault schedule -----------------------------------------------------------------------------------------
# One cycle of every fault per 10 minutes (one for shorter runs), each at a fixed share of its cycle; a live
# reload every minute. Events are "OFFSET_S KIND".
CYCLES=$(( MINUTES >= 20 ? MINUTES / 10 : 1 ))
CYCLE_S=$((LOAD_S / CYCLES))
SCHEDULE=$WORK/schedule.txt
{
  for c in $(seq 0 $((CYCLES - 1))); do
    base=$((c * CYCLE_S))
    for ev in "10 latency" "20 loss" "30 failover" "42 gateway-stop" "50 carrier-silent" "60 redis-empty" \
              "68 burst" "75 gateway-kill"; do
      set -- $ev
      echo "$((base + CYCLE_S * $1 / 100)) $2"
    done
  done
  for m in $(seq 1 $((MINUTES))); do echo "$((m * 60 - 30)) reload"; done
} | sort -n >"$SCHEDULE"

RELOADS=0
reload() {
  local t g
  t=$(now)
  RELOADS=$((RELOADS + 1))
  sed -i "s/^# reload .*//; 1i # reload $RELOADS" "$WORK/conf/peers/p3.conf"
  for g in 1 2; do
    curl -s -m 5 -o /dev/null -X POST -H 'Authorization: Bearer soak' "http://127.0.0.1:${ADMIN_PORT[g]}/api/reload" || true
  done
  fault reload "$t" "$(now)" "#$RELOADS"
}
set_proxy() { echo "$1 $2" >"$PROXY_CTL"; }
# up_master: the index of the master node, once there is one (a cluster has none for p1's keys mid-failover)
up_master() {
  local m
  for _ in $(seq 300); do m=$(master_node); [ -n "$m" ] && break; sleep 0.1; done
  echo "$m"
}
run_fault() {
  local kind=$1 t m
  t=$(now)
  case $kind in
    latency) set_proxy 40 0; sleep 10; set_proxy 0 0; fault latency "$t" "$(now)" "40 ms on every Redis reply" ;;
    loss) set_proxy 0 0.05; sleep 10; set_proxy 0 0; fault loss "$t" "$(now)" "5% of segments held 200-600 ms" ;;
    failover)
      m=$(up_master)
      kill -KILL "${NODE_PID[m]}"
      for _ in $(seq 300); do n=$(master_node); [ -n "$n" ] && [ "$n" != "$m" ] && break; sleep 0.1; done
      fault failover "$t" "$(now)" "node $m killed, node $(master_node) promoted"
      sleep 2
      start_node "$m" ;;
    redis-empty)
      m=$(up_master)
      kill -KILL "${NODE_PID[m]}"
      while kill -0 "${NODE_PID[m]}" 2>/dev/null; do sleep 0.01; done
      start_node "$m"
      fault redis-empty "$t" "$(now)" "master node $m restarted empty" ;;
    gateway-stop) kill -STOP "$GW_PID_gw1"; sleep 2; kill -CONT "$GW_PID_gw1"; fault gateway-stop "$t" "$(now)" "gw1 SIGSTOP 2 s" ;;
    carrier-silent) kill -STOP "$UAS_PID_ca"; sleep 8; kill -CONT "$UAS_PID_ca"; fault carrier-silent "$t" "$(now)" "ca SIGSTOP 8 s" ;;
    burst)
      caller "burst$t" 127.0.1.3 1 $((RATE * 20)) 5
      sleep 5
      fault burst "$t" "$(now)" "$((RATE * 2)) calls/s for 5 s from p3 to gw1" ;;
    gateway-kill)
      kill -KILL "${!GW2_PIDVAR}"
      wait "${!GW2_PIDVAR}" 2>/dev/null || true
      KILLS=$((${KILLS:-0} + 1))
      GW2_NAME=gw2_$KILLS GW2_PIDVAR=GW_PID_gw2_$KILLS
      launch "$GW2_NAME" 2
      pids_file
      echo "$kind $t" >>"$WORK/pending"
      log "gateway gw2 killed (SIGKILL), restarting as $GW2_NAME" ;;
    reload) reload ;;
  esac
}
# a gateway restart is awaited between events: its fault ends when it is ready again
check_pending() {
  [ -s "$WORK/pending" ] || return 0
  local pending_kind pending_t
  if gateway_ready "$GW2_NAME"; then
    read -r pending_kind pending_t <"$WORK/pending"
    : >"$WORK/pending"
    fault "$pending_kind" "$pending_t" "$(now)" "gw2 SIGKILL, restarted"
  fi
}
while read -r offset kind; do
  while [ "$(awk -v a="$(now)" -v b="$T0" -v o="$offset" 'BEGIN{print (a - b < o)}')" = 1 ]; do check_pending; sleep 0.2; done
  check_pending
  run_fault "$kind"
done <"$SCHEDULE"
while [ "$(awk -v a="$(now)" -v b="$T0" -v o="$LOAD_S" 'BEGIN{print (a - b < o)}')" = 1 ]; do check_pending; sleep 0.5; done
for _ in $(seq 600); do check_pending; [ -s "$WORK/pending" ] || break; sleep 0.2; done
log "load over; waiting for the calls to end (at most $((CALL_MAX_S + 90)) s)"

# --- after the load ---------------------------------------------------------------------------------------------
for _ in $(seq $(((CALL_MAX_S + 90) * 5))); do
  running=0
  for pid in "${CALLERS[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
  [ "$running" = 0 ] && break
  sleep 0.2
done
if [ "$running" = 1 ]; then
  for pid in "${CALLERS[@]}"; do kill -USR1 "$pid" 2>/dev/null || true; done
  sleep 3
  for pid in "${CALLERS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
fi
T_END=$(now)
echo "$T_END" >"$WORK/t_end"
# tcpdump writes out what it holds, and what it dropped, when interrupted
[ -z "$CAPTURE_PID" ] || { kill -INT "$CAPTURE_PID" 2>/dev/null || true; wait "$CAPTURE_PID" 2>/dev/null || true; }
# dialogs and transactions should drain within the transaction linger (5 s by default, 32 s at most)
# sip_left G: the dialogs and transactions gateway G holds (its /metrics), "?" when it does not answer
sip_left() {
  curl -s -m 5 "http://127.0.0.1:${ADMIN_PORT[$1]}/metrics" |
    awk '/^trunkgate_sip_(dialogs|transactions_in_flight|stack_transactions)[{ ]/{s += $NF; n++}
         END{if (n) printf "%d", s; else printf "?"}'
}
for _ in $(seq 80); do
  [ "$(sip_left 1)" = 0 ] && [ "$(sip_left 2)" = 0 ] && break
  sleep 0.5
done
# the last lease snapshot: once no lease is live, at the latest the lease time after the last call ended (every
# lease should be gone by then)
LEASE_DEADLINE=$(($(date +%s) + LEASE_S + 2))
while :; do
  "${SAMPLER[@]}" --once leases >"$WORK/samples/leases-final.txt"
  awk 'NF == 4 && $4 > $1 {live = 1} END {exit live}' "$WORK/samples/leases-final.txt" && break
  [ "$(date +%s)" -lt "$LEASE_DEADLINE" ] || break
  sleep 0.5
done
heap_fds gw1 "$GW_PID_gw1" >>"$WORK/samples/idle.tsv"
for g in 1 2; do curl -s -m 5 "http://127.0.0.1:${ADMIN_PORT[g]}/metrics" >"$WORK/metrics-end-gw$g.txt" || true; done
status=0
stop_gateway gw1 || { status=1; log "FAIL: gateway gw1 did not stop cleanly"; }
stop_gateway "$GW2_NAME" || { status=1; log "FAIL: gateway $GW2_NAME did not stop cleanly"; }
stop_uas ca 1
stop_uas cb 1

# what-if replays the records under the soak's own configuration (reloads change none of its limits): the checks
# want every call whose decision differs named why by the records (docs/what-if.md)
gw_env gw1 1
env "${GW_ENV[@]}" $JAVA ${JAVA_OPTS:-} -jar "$JAR" what-if --records "$WORK"/records-*.jsonl* --config "$WORK/conf" \
  --json >"$WORK/what-if.json" 2>"$WORK/what-if.log" || log "what-if failed: $(tail -3 "$WORK/what-if.log")"
python3 "$REPO_DIR/bench/lib/soak_checks.py" "$WORK" --peer-max "$PEER_MAX" --carrier-cps "$CARRIER_CPS" \
  --carrier-burst "$CARRIER_BURST" --lease-s "$LEASE_S" --call-max-s "$CALL_MAX_S" --load-s "$LOAD_S" \
  --svg "$REPO_DIR/target/bench-soak.svg" --summary "$WORK/summary.txt" || status=1
log "machine after: $(machine_line)"
if [ -z "${NO_RESULTS:-}" ]; then
  cp "$REPO_DIR/target/bench-soak.svg" "$REPO_DIR/bench/soak-timeline.svg"
  mapfile -t figures <"$WORK/summary.txt"
  results_append "soak.sh" "$(results_command "bench/soak.sh $MINUTES" RATE CALL_MIN_S CALL_MAX_S CANCEL_SHARE \
    WARM_UP_MAX_TIME \
    $([ "$TOPOLOGY" = sentinel ] || echo TOPOLOGY))" \
    "$([ "$status" = 0 ] && echo "every check passed" || echo "a check FAILED")" "${figures[@]}" \
    "timeline: bench/soak-timeline.svg"
fi
[ -z "${KEEP:-}" ] || log "work dir kept: $WORK"
[ "$status" = 0 ] && log "soak: every check passed" || log "soak: FAILED"
exit "$status"
}
