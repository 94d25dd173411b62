#!/usr/bin/env bash
# Follows the README's "Quick start" word for word on a fresh clone of this repository's HEAD (committed files
# only), in a temporary directory: the build and run command, the SIPp carrier, the 10 calls, the refusal and the
# reroute. Each command below must appear verbatim in that README section, or the script stops at once.
# Checks: 10 of 10 calls completed (SIPp's exit code, the gateway's call log, /api/peers), the status page
# answers, the refusal is a 503 over the peer's 1 s limit, the block (the CLI with the token the gateway made)
# refuses a call with 403 until it is lifted, the carrier stopped goes down after 3 timed-out calls and the other
# 7 go straight to the alternate, what-if replays every record with the same decision, and SIGTERM stops the
# gateway cleanly (its embedded redis-server and that server's temporary directory gone).
# Exit 0 when everything holds; each step has a time bound. Loopback only; needs git, mvn, java 17+, sipp,
# python3, and ports 5060 (UDP, TCP), 5080, 5081 (UDP) and 8080 (TCP) free on 127.0.0.1, as the README does.
#
#   bench/quickstart.sh            # about 2 minutes: the build, the gateway's warm-up, 120 calls
#   KEEP=1 bench/quickstart.sh     # keep the work directory (clone, logs)
set -euo pipefail

REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)

RUN='mvn -q package -DskipTests && bin/trunkgate run --config conf/gateway.conf'
CARRIER='sipp -sn uas -i 127.0.0.1 -p 5080'
CALLER='sipp -sn uac -i 127.0.0.1 -m 10 127.0.0.1:5060'
OVER_LIMIT='sipp -sn uac -i 127.0.0.1 -r 20 -m 100 127.0.0.1:5060'
ALTERNATE='sipp -sn uas -i 127.0.0.1 -p 5081'
DEAD_CARRIER='sipp -sn uac -i 127.0.0.1 -l 1 -m 10 127.0.0.1:5060'
BLOCK='bin/trunkgate block local 1m'
UNBLOCK='bin/trunkgate unblock local'
ONE_CALL='sipp -sn uac -i 127.0.0.1 -m 1 127.0.0.1:5060'
WHAT_IF='bin/trunkgate what-if --records calls.jsonl --config conf'
READY='admin HTTP on http://127.0.0.1:8080/'
STATUS_PAGE=http://127.0.0.1:8080/

BUILD_LIMIT_S=${BUILD_LIMIT_S:-900}
READY_LIMIT_S=${READY_LIMIT_S:-180}
CALLS_LIMIT_S=${CALLS_LIMIT_S:-120}

log() { echo "[$(date -u +%H:%M:%S)] quickstart: $*" >&2; }
fail() { log "FAILED: $*"; show_logs; exit 1; }

for tool in git mvn java sipp python3; do
  command -v "$tool" >/dev/null 2>&1 || { log "missing: $tool"; exit 2; }
done

# The commands must be the README's, word for word.
section=$(awk '/^## Quick start$/ { on = 1; next } on && /^## / { exit } on' "$REPO_DIR/README.md")
[ -n "$section" ] || { log "README.md has no '## Quick start' section"; exit 1; }
for line in "$RUN" "$CARRIER" "$CALLER" "$OVER_LIMIT" "$ALTERNATE" "$DEAD_CARRIER" "$BLOCK" "$UNBLOCK" "$WHAT_IF"; do
  grep -Fxq -- "$line" <<<"$section" || { log "not a line of README.md's Quick start: $line"; exit 1; }
done
grep -Fq -- "\`$READY\`" <<<"$section" || { log "README.md's Quick start does not name the line '$READY'"; exit 1; }
case "$RUN" in *' && '*' && '*) log "the run command has more than one '&&'"; exit 1 ;; esac
BUILD=${RUN%% && *}
START=${RUN#* && }

WORK=$(mktemp -d /tmp/trunkgate-quickstart.XXXXXX)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ -n "${KEEP:-}" ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

show_logs() {
  local f
  for f in gateway.log sipp/*.out; do
    [ -s "$WORK/$f" ] && { echo "--- $f" >&2; tail -15 "$WORK/$f" >&2; }
  done
  return 0
}

# port_state PROTO PORT: "bound" when something has PROTO (udp|tcp) PORT bound on 127.0.0.1, else "free".
port_state() {
  python3 - "$1" "$2" <<'EOF'
import socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM
s = socket.socket(socket.AF_INET, kind)
# as servers bind (the gateway's admin server too): a connection in TIME_WAIT does not hold the port
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[2])))
    print("free")
except OSError:
    print("bound")
finally:
    s.close()
EOF
}

for port in udp:5060 tcp:5060 udp:5080 udp:5081 tcp:8080; do
  [ "$(port_state "${port%%:*}" "${port#*:}")" = free ] || { log "$port on 127.0.0.1 is in use; the README's ports must be free"; exit 2; }
done

# await_udp PID PORT: waits until the process PID has bound UDP PORT (SIPp binds at its start).
await_udp() {
  for _ in $(seq 100); do
    [ "$(port_state udp "$2")" = bound ] && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# peer_window WINDOW_MS: calls counted in peer local's rolling window of that length, from /api/peers.
peer_window() {
  python3 - "$1" <<'EOF'
import json, sys, urllib.request
peers = json.load(urllib.request.urlopen("http://127.0.0.1:8080/api/peers", timeout=5))["peers"]
local = next(p for p in peers if p["id"] == "local")
print(next(l["used"] for l in local["limits"] if l["windowMs"] == int(sys.argv[1])))
EOF
}

# quiet_second: waits until peer local's 1 s window is empty, as it is when a person types the next command.
quiet_second() {
  for _ in $(seq 50); do
    [ "$(peer_window 1000)" -eq 0 ] && return 0
    sleep 0.1
  done
  fail "peer local's 1 s window did not empty"
}

# run_caller NAME COMMAND: runs a SIPp caller from the README in the work directory; its exit code in CALLER_RC.
run_caller() {
  CALLER_RC=0
  (cd "$WORK/sipp" && timeout "$CALLS_LIMIT_S" bash -c "exec $2" </dev/null >"$1.out" 2>&1) || CALLER_RC=$?
}

# calls_logged FROM PATTERN: call log lines of the gateway after line FROM that match PATTERN.
calls_logged() {
  tail -n "+$(($1 + 1))" "$WORK/gateway.log" | grep -c -- "trunkgate.calls - .*$2" || true
}

# Waits (at most 5 s) until the gateway has logged the call line of each of the $2 calls placed since line $1: the
# console log is written a batch at a time by a thread of its own, so the last lines may follow SIPp's end.
await_calls_logged() {
  local i
  for i in $(seq 50); do
    [ "$(calls_logged "$1" "")" -ge "$2" ] && return 0
    sleep 0.1
  done
}

log "work directory $WORK"
# safe.directory: CI's checkout may belong to another user than the one running this
head=$(git -c safe.directory="$REPO_DIR" -C "$REPO_DIR" rev-parse HEAD)
git -c advice.detachedHead=false -c safe.directory="$REPO_DIR" clone -q "$REPO_DIR" "$WORK/trunkgate"
git -C "$WORK/trunkgate" -c advice.detachedHead=false checkout -q --detach "$head"
mkdir "$WORK/sipp"
cd "$WORK/trunkgate"
log "fresh clone of $(git rev-parse --short HEAD); $BUILD"
timeout "$BUILD_LIMIT_S" bash -c "$BUILD" >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; fail "the build"; }

log "$START"
started=$(date +%s)
bash -c "exec $START" </dev/null >"$WORK/gateway.log" 2>&1 &
GW=$!
PIDS+=("$GW")
until grep -Fq -- "$READY" "$WORK/gateway.log"; do
  kill -0 "$GW" 2>/dev/null || fail "the gateway exited before it logged '$READY'"
  [ $(($(date +%s) - started)) -lt "$READY_LIMIT_S" ] || fail "no '$READY' within ${READY_LIMIT_S}s"
  sleep 0.2
done
log "ready after $(($(date +%s) - started)) s"

# The embedded redis-server and its --dir, from the command line of the guard shell the gateway runs it under
# (redis-server rewrites its own).
redis_pid=""
redis_dir=""
for shell in $(pgrep -P "$GW" || true); do
  dir=$(tr '\0' '\n' <"/proc/$shell/cmdline" 2>/dev/null | grep -A1 -x -- --dir | tail -n1 || true)
  [ -n "$dir" ] && { redis_dir=$dir; redis_pid=$(pgrep -P "$shell" || true); }
done
[ -n "$redis_pid" ] && [ -d "$redis_dir" ] || fail "found no embedded redis-server with a --dir under the gateway"

log "$CARRIER"
(cd "$WORK/sipp" && exec bash -c "exec $CARRIER" </dev/null >carrier.out 2>&1) &
UAS=$!
PIDS+=("$UAS")
await_udp "$UAS" 5080 || fail "the carrier did not bind 127.0.0.1:5080"

log "$CALLER"
mark=$(wc -l <"$WORK/gateway.log")
run_caller caller "$CALLER"
[ "$CALLER_RC" -eq 0 ] || fail "SIPp caller exit code $CALLER_RC (0: every call successful)"
await_calls_logged "$mark" 10
completed=$(calls_logged "$mark" "peer=local admission=admitted carrier=local .*final=200")
[ "$completed" -eq 10 ] || fail "the gateway logged $completed calls of peer local with final=200, not 10"
minute=$(peer_window 60000)
[ "$minute" -eq 10 ] || fail "/api/peers counts $minute calls of peer local in its 1 min window, not 10"
python3 -c 'import sys, urllib.request; r = urllib.request.urlopen(sys.argv[1], timeout=5); sys.exit(0 if r.status == 200 and b"api/peers" in r.read() else 1)' \
    "$STATUS_PAGE" || fail "the status page $STATUS_PAGE did not answer"
log "10 of 10 calls completed; /api/peers counts $minute in the last minute; status page $STATUS_PAGE answers"

# What an operator reads of those calls: one record each with the fields a billing system needs, the metrics
# counting exactly them (the warm-up's thousands of calls in none of it), the JVM's series and the build; and an
# INVITE from an address no peer has, counted.
python3 - "$WORK/trunkgate/calls.jsonl" <<'EOF' || fail "the call records of the 10 calls are not as docs/records.md says"
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
assert len(records) == 10, f"{len(records)} records, not 10"
for r in records:
    for field in ("callId", "fromTag", "cseq", "sourceAddress", "transport", "fromUser", "toUser", "requestUser",
                  "peer", "admission", "attempts", "finalCarrier", "invitedAt", "answeredAt", "endedAt",
                  "durationMs", "finalStatus", "hungUpBy"):
        assert field in r, f"no {field} in {r}"
    assert r["peer"] == "local" and r["admission"] == "admitted" and r["finalStatus"] == 200, r
    assert r["finalCarrier"] == "local" and r["attempts"][0]["address"].startswith("127.0.0.1:5080"), r
    assert r["sourceAddress"].startswith("127.0.0.1:") and r["requestUser"], r
EOF
python3 - <<'EOF' || fail "an INVITE from an unknown address got no 403"
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.2", 0))
port = s.getsockname()[1]
s.sendto((f"INVITE sip:100@127.0.0.1:5060 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:{port};branch=z9hG4bKquick1\r\n"
          f"Max-Forwards: 70\r\nFrom: <sip:x@127.0.0.2>;tag=q1\r\nTo: <sip:100@127.0.0.1>\r\n"
          f"Call-ID: quickstart-unknown@127.0.0.2\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n").encode(),
         ("127.0.0.1", 5060))
s.settimeout(5)
assert s.recv(4096).startswith(b"SIP/2.0 403")
EOF
python3 - <<'EOF' || fail "/metrics does not count the 10 calls and the unknown source, or lacks jvm_, process_ or build_info"
import re, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:8080/metrics", timeout=5).read().decode()
def value(pattern):
    found = re.search("^" + pattern + r" ([0-9.eE+]+)$", text, re.M)
    assert found, "no " + pattern
    return float(found.group(1))
assert value(r'trunkgate_calls_admitted_total\{[^}]*peer="local"[^}]*\}') == 10
assert value(r'trunkgate_calls_rejected_total\{[^}]*reason="unknown_source"[^}]*\}') >= 1
assert re.search(r"^jvm_memory_used_bytes\{", text, re.M) and re.search(r"^process_cpu_usage[{ ]", text, re.M)
assert re.search(r"^trunkgate_build_info\{", text, re.M)
EOF
log "10 records with every field; /metrics: 10 admitted, the unknown source counted, jvm_, process_ and build_info"

quiet_second
log "$OVER_LIMIT"
mark=$(wc -l <"$WORK/gateway.log")
run_caller over-limit "$OVER_LIMIT"
await_calls_logged "$mark" 100
refused=$(calls_logged "$mark" "peer=local admission=rejected(peer:local 15/1000ms) .*final=503")
admitted=$(calls_logged "$mark" "peer=local admission=admitted .*final=200")
[ "$CALLER_RC" -ne 0 ] && [ "$refused" -gt 0 ] && [ "$admitted" -gt 0 ] \
  || fail "over the limit: SIPp exit code $CALLER_RC, $admitted completed, $refused refused over 15/1000ms"
log "over the limit: $admitted of 100 calls completed, $refused refused (503, peer:local 15/1000ms)"

log "carrier stopped; $ALTERNATE"
kill -TERM "$UAS"
wait "$UAS" 2>/dev/null || true
(cd "$WORK/sipp" && exec bash -c "exec $ALTERNATE" </dev/null >alternate.out 2>&1) &
ALT=$!
PIDS+=("$ALT")
await_udp "$ALT" 5081 || fail "the alternate carrier did not bind 127.0.0.1:5081"
quiet_second
log "$DEAD_CARRIER"
mark=$(wc -l <"$WORK/gateway.log")
run_caller rerouted "$DEAD_CARRIER"
await_calls_logged "$mark" 10
timed_out=$(calls_logged "$mark" "carrier=local-backup .*reroutes=\[local->local-backup:timeout\] final=200")
skipped=$(calls_logged "$mark" "carrier=local-backup .*reroutes=\[local->local-backup:carrier_down\] final=200")
[ "$CALLER_RC" -eq 0 ] && [ "$timed_out" -eq 3 ] && [ "$skipped" -eq 7 ] \
  || fail "reroute: SIPp exit code $CALLER_RC; of 10 calls $timed_out rerouted after local's answer-timeout (3 wanted), $skipped straight to local-backup with local down (7 wanted)"
log "10 of 10 calls reached local-backup: 3 after local's answer-timeout, then local was down and 7 went straight"

# The block, with the admin token the gateway made (no TRUNKGATE_ADMIN_TOKEN here), from the directory it runs in.
quiet_second
log "$BLOCK"
(cd "$WORK/trunkgate" && env -u TRUNKGATE_ADMIN_TOKEN bash -c "exec $BLOCK" </dev/null >"$WORK/block.out" 2>&1) \
  || { cat "$WORK/block.out" >&2; fail "$BLOCK"; }
[ "$(stat -c %a "$WORK/trunkgate/admin.token")" = 600 ] || fail "admin.token is not readable by its owner only"
mark=$(wc -l <"$WORK/gateway.log")
run_caller blocked "$ONE_CALL"
await_calls_logged "$mark" 1
blocked=$(calls_logged "$mark" "peer=local admission=rejected(blocked) .*final=403")
[ "$CALLER_RC" -ne 0 ] && [ "$blocked" -eq 1 ] || fail "blocked: SIPp exit code $CALLER_RC, $blocked calls refused 403"
log "$UNBLOCK"
(cd "$WORK/trunkgate" && env -u TRUNKGATE_ADMIN_TOKEN bash -c "exec $UNBLOCK" </dev/null >>"$WORK/block.out" 2>&1) \
  || { cat "$WORK/block.out" >&2; fail "$UNBLOCK"; }
log "blocked: a call refused 403 (admission=rejected(blocked)), then unblocked: $(tail -n1 "$WORK/block.out")"

# Every record replayed through the configuration that decided it gets its decision (the blocked call is not
# replayed: a block is no part of a configuration).
log "$WHAT_IF"
(cd "$WORK/trunkgate" && bash -c "exec $WHAT_IF" </dev/null >"$WORK/what-if.out" 2>&1) \
  || { cat "$WORK/what-if.out" >&2; fail "$WHAT_IF"; }
same=$(grep -E '^same decision as recorded: ' "$WORK/what-if.out" || true)
records=$(wc -l <"$WORK/trunkgate/calls.jsonl")
[ "$same" = "same decision as recorded: $((records - 1)) of $((records - 1)) (100.00%)" ] \
  || { cat "$WORK/what-if.out" >&2; fail "what-if: '$same' for $records records (one blocked, not replayed)"; }
log "what-if: $same; $(grep -E '^not replayed' "$WORK/what-if.out")"

log "SIGTERM to the gateway"
kill -TERM "$GW"
gw_rc=0
timeout 60 tail --pid="$GW" -f /dev/null || fail "the gateway did not exit within 60 s of SIGTERM"
wait "$GW" || gw_rc=$?
[ "$gw_rc" -eq 0 ] || [ "$gw_rc" -eq 143 ] || fail "the gateway exited with $gw_rc after SIGTERM"
! kill -0 "$redis_pid" 2>/dev/null || fail "the embedded redis-server (pid $redis_pid) outlived the gateway"
[ ! -e "$redis_dir" ] || fail "the embedded redis-server's directory $redis_dir is left behind"
log "OK: the README's quick start on a fresh clone: 10 of 10 calls, a refusal, a block, a reroute, what-if, a clean stop"
