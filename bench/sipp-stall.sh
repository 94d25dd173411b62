#!/usr/bin/env bash
# A stall of the whole gateway under load: what a long GC pause or a VM descheduled for a second does to calls.
# The bench/sipp-vs-kamailio.sh set-up (standalone redis-server, carrier with burst = 1), one SIPp caller at RATE
# calls/s from the moment the gateway is ready, for SECS seconds; STALL_AT seconds in, the gateway's JVM is
# stopped (SIGSTOP) for STALL_MS and let go again (SIGCONT). Redis answers throughout. Prints the caller's
# outcome, the gateway's calls by admission outcome and second, and the Redis circuit's transitions: every
# refusal here is the gateway's own doing.
#
#   bench/sipp-stall.sh
#   RATE=600 STALL_MS=2000 JAR=/tmp/other.jar bench/sipp-stall.sh
set -euo pipefail
source "$(dirname "$0")/sipp/lib.sh"
source "$(dirname "$0")/lib/results.sh"

RATE=${RATE:-1200}
SECS=${SECS:-30}
STALL_AT=${STALL_AT:-15}
STALL_MS=${STALL_MS:-1000}

sipp_init trunkgate-sipp-stall
sipp_tee bench-sipp-stall
echo "# $(machine_line) cpu=\"$(lscpu | grep 'Model name' | sed 's/.*: *//')\" work=$WORK"
echo "# $RATE calls/s for $SECS s; the gateway stopped for $STALL_MS ms $STALL_AT s in"
start_vs_gateway
steady_caller "$GW_PORT" "$RATE" "$SECS"
sleep "$STALL_AT"
stalled_at=$(date -u +%H:%M:%S.%N | cut -c1-12)
kill -STOP "$GW"
sleep "$(echo "$STALL_MS / 1000" | bc -l)"
kill -CONT "$GW"
echo "# stalled at $stalled_at UTC"
wait "$UAC" || true
caller=$(python3 "$REPO_DIR/bench/sipp_analyze.py" stat "$WORK/uac/uac_stat.csv")
echo "# caller: $caller"
echo "# gateway calls by admission and final status:"
grep -h 'trunkgate.calls' "$WORK/gw.log" | sed -n 's/.* admission=\([^ ]*\).* final=\([0-9]*\).*/\1 \2/p' | sort | uniq -c |
  sed 's/^/#   /'
echo "# refused calls by second (UTC):"
grep -h 'trunkgate.calls' "$WORK/gw.log" | grep -v 'final=200' | cut -c12-19 | uniq -c | sed 's/^/#   /' || echo "#   none"
echo "# redis circuit:"
grep -h 'redis circuit' "$WORK/gw.log" | sed 's/^\(.\{23\}\).*redis circuit /#   \1 /' || echo "#   closed throughout"
refused=$(grep -h 'trunkgate.calls' "$WORK/gw.log" | grep -vc 'final=200' || true)
unavailable=$(grep -h 'trunkgate.calls' "$WORK/gw.log" | grep -Ec 'redis[-_]unavailable' || true)
transitions=$(grep -hc 'redis circuit' "$WORK/gw.log" || true)
results_append sipp-stall.sh "$(results_command bench/sipp-stall.sh RATE SECS STALL_AT STALL_MS)" \
  "caller: $caller" "gateway: $refused calls not answered 200, $unavailable of them redis_unavailable" \
  "redis circuit transitions: $transitions"
