# Appends one benchmark run to bench/RESULTS.md: the dated history of every figure the documents quote.
# The documents carry only the current figures and the command that reproduces them; each run lands here.
#
#   source "$(dirname "$0")/lib/results.sh"      (or .../../lib/results.sh from a subfolder)
#   results_append "sipp-smoke.sh" "RATE=20 CALLS=200 bench/sipp-smoke.sh" "calls ok 200/200" "p99 setup 4.1 ms"
#
# One section per run: script, UTC time, commit, machine; the command; one figure per line.
# NO_RESULTS=1 runs a benchmark without recording it (CI smoke runs do this).

results_append() {
  [ -z "${NO_RESULTS:-}" ] || return 0
  local script=$1 command=$2; shift 2
  local root file commit cpu
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  file=$root/bench/RESULTS.md
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  # dirty: changes beside the runs this file already holds (a second run before a commit is still clean)
  git -C "$root" diff --quiet HEAD -- . ':!bench/RESULTS.md' 2>/dev/null || commit="$commit+dirty"
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
  {
    echo
    echo "## $script — $(date -u +%Y-%m-%dT%H:%MZ) — $commit — $(nproc) cores, ${cpu:-unknown cpu}, load $(cut -d' ' -f1 /proc/loadavg)"
    echo
    echo "\`$command\`"
    echo
    local figure
    for figure in "$@"; do echo "- $figure"; done
  } >> "$file"
}

# The command that repeats this run, for results_append: the script with the value of every setting named (the
# script's own knobs, defaults included) and of the settings any bench script takes when they are set (another
# jar, JVM options, CPU pinning, TG_* overrides of the gateway's configuration).
#
#   results_command bench/sipp-stall.sh RATE SECS STALL_AT STALL_MS    ->  RATE=1200 SECS=30 ... bench/sipp-stall.sh
results_command() {
  local script=$1; shift
  local out="" name value default_jar
  default_jar=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/target/trunkgate.jar
  for name in "$@" JAVA_OPTS PROXY_CPUS LOAD_CPUS $(compgen -e | grep '^TG_' || true) JAR; do
    value=${!name:-}
    [ -n "$value" ] || continue
    [ "$name" != JAR ] || [ "$value" != "$default_jar" ] || continue
    case $value in
      *[!A-Za-z0-9_./:,=+-]*) out+="$name=\"$value\" " ;;
      *) out+="$name=$value " ;;
    esac
  done
  echo "$out$script"
}
