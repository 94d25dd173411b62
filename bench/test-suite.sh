#!/usr/bin/env bash
# How long the README's test command takes on a fresh clone of HEAD: `mvn verify` wall, user and system time, the
# tests run and the five slowest test classes; the figures go to bench/RESULTS.md (NO_RESULTS=1: not recorded).
#   MVN_ARGS="-o"   Maven's extra options (offline, when ~/.m2 holds every dependency already)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/lib/results.sh"
MVN_ARGS=${MVN_ARGS:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/trunkgate"
cd "$work/trunkgate"
load=$(cut -d' ' -f1-3 /proc/loadavg)
TIMEFORMAT='%R %U %S'
# shellcheck disable=SC2086
times=$( { time mvn -B -q $MVN_ARGS verify > "$work/verify.log" 2>&1; } 2>&1 ) || {
  tail -50 "$work/verify.log"; echo "mvn verify failed"; exit 1; }
read -r real user sys <<< "$times"
tests=$(cat target/surefire-reports/*.txt | grep -h 'Tests run' | awk -F'[:,]' '{t+=$2; f+=$4+$6; s+=$8} END {print t" tests, "f" failed, "s" skipped"}')
slowest=$(grep -h 'Tests run' target/surefire-reports/*.txt | sed 's/.*Time elapsed: \([0-9.]*\) s.* in io.trunkgate.\(.*\)/\1 s \2/' \
  | sort -rn | head -5 | paste -sd, | sed 's/,/, /g')
echo "mvn verify: ${real} s wall, ${user} s user, ${sys} s system; ${tests}; load before ${load}"
echo "slowest classes: ${slowest}"
results_append test-suite.sh "$(results_command bench/test-suite.sh MVN_ARGS)" \
  "mvn verify on a fresh clone: ${real} s wall, ${user} s user, ${sys} s system" "${tests}" \
  "load average before: ${load}" "slowest test classes: ${slowest}"
