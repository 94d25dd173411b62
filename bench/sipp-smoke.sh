#!/usr/bin/env bash
# SIPp smoke test of the built jar: SIPp caller -> gateway (embedded Redis) -> SIPp carrier, a short load
# (default 20 calls/s, 200 calls, ~10 s). Exits non-zero when any call failed, at the caller or at the
# carrier, or when the gateway does not stop cleanly on SIGTERM (JVM gone, its embedded redis-server gone).
#
#   bench/sipp-smoke.sh                  # after mvn package (target/trunkgate.jar)
#   RATE=50 CALLS=500 bench/sipp-smoke.sh
#   KEEP=1 bench/sipp-smoke.sh           # keep the work directory (logs, SIPp CSVs)
#   UAC=builtin CALLS=20 bench/sipp-smoke.sh   # SIPp's built-in caller (-sn uac): ACK and BYE sent to the
#                                        # gateway's address without the Record-Route set
# Ports are picked free on 127.0.0.1 (gateway, caller) and 127.0.0.2 (carrier); loopback only.
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATE=${RATE:-20}
CALLS=${CALLS:-200}
CALL_MS=${CALL_MS:-200}          # pause between ACK and BYE
UAC=${UAC:-scenario}             # scenario: bench/sipp/uac.xml; builtin: sipp -sn uac
LIMIT_S=${LIMIT_S:-45}           # hard bound on the SIPp caller run

sipp_init trunkgate-sipp-smoke
[ -n "${KEEP:-}" ] || trap 'sipp_cleanup; rm -rf "$WORK"' EXIT
log "$(machine_line) work=$WORK"

GW_PORT=$(free_sip_port 127.0.0.1)
UAS_PORT=$(free_sip_port 127.0.0.2)
UAC_PORT=$(free_sip_port 127.0.0.1)
ADMIN_PORT=$(free_port 127.0.0.1)

# A functional check, not a latency one: a Redis budget of 500 ms (instead of 50 ms) keeps a busy CI machine's
# slow replies from being taken for Redis failures (redis-down = reject would fail those calls).
start_gateway gw "$SIPP_DIR/conf/gateway.conf" TG_SIP_PORT="$GW_PORT" TG_ADMIN_PORT="$ADMIN_PORT" \
  TG_CARRIER_URI="sip:127.0.0.2:$UAS_PORT;transport=udp" TG_REDIS_TIMEOUT="${REDIS_TIMEOUT:-500ms}"
sipp_uas uas 127.0.0.2 "$UAS_PORT" -m "$CALLS" -timeout "$((LIMIT_S + 10))s"

log "SIPp caller: $CALLS calls at $RATE/s via 127.0.0.1:$GW_PORT"
uac_rc=0
if [ "$UAC" = builtin ]; then uac_scenario=(-sn uac); else uac_scenario=(-sf "$SIPP_DIR/uac.xml"); fi
(cd "$WORK" && timeout "$((LIMIT_S + 15))" sipp "${uac_scenario[@]}" -i 127.0.0.1 -p "$UAC_PORT" \
    "127.0.0.1:$GW_PORT" -s 4420555 -r "$RATE" -m "$CALLS" -d "$CALL_MS" -nostdin -buff_size 4194304 \
    -timeout "${LIMIT_S}s" -timeout_error -trace_err -error_file uac_errors.log \
    -trace_stat -stf uac_stat.csv -fd 1 -trace_screen -screen_file uac_screen.log \
    >"$WORK/uac.out" 2>&1) || uac_rc=$?
stop_uas uas 5

failed=0
stop_gateway gw || failed=1

[ "$uac_rc" -eq 0 ] || { log "SIPp caller exit code $uac_rc (0 = all calls successful)"; failed=1; }
uac_line=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac_stat.csv" --expect "$CALLS" 2>&1) || failed=1
log "caller:  $uac_line"
uas_line=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uas_stat.csv" --expect "$CALLS" 2>&1) || failed=1
log "carrier: $uas_line"
admitted=$(grep -c 'peer=sipp-caller .*final=200' "$WORK/gw.log" || true)   # not the start-up warm-up's calls
log "gateway: $admitted calls logged with final=200"
[ "$admitted" -eq "$CALLS" ] || failed=1

results_append sipp-smoke.sh "$(results_command bench/sipp-smoke.sh RATE CALLS CALL_MS UAC)" \
  "$([ "$failed" -eq 0 ] && echo OK || echo FAILED): $CALLS calls at $RATE/s" "caller: $uac_line" "carrier: $uas_line" \
  "gateway: $admitted calls logged with final=200"

if [ "$failed" -ne 0 ]; then
  log "FAILED; last lines of the logs:"
  for f in uac_errors.log uas_errors.log uac.out uas.out gw.log; do
    [ -s "$WORK/$f" ] && { echo "--- $f" >&2; tail -15 "$WORK/$f" >&2; }
  done
  exit 1
fi
log "OK: $CALLS calls at $RATE/s, all successful; gateway stopped cleanly"
