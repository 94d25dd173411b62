#!/usr/bin/env bash
# Redis time per decision of lua/admit.lua and lua/pace.lua (INFO commandstats) in the states that once cost
# tens of milliseconds (issue 31: a window over its max after a reload lowered it, the first call after a quiet
# spell, after Redis's clock stepped back), on a scratch redis-server driven by the scripts' test clock.
# Prints one figure per state and appends them to bench/RESULTS.md. Target: each at most 200 us.
#
#   bench/redis-cost.sh            REPS=20 by default (measured calls per state: 5x that for refusals)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-20}
PORT=${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
DIR=$(mktemp -d)
redis-server --port "$PORT" --save '' --appendonly no --dir "$DIR" --logfile "$DIR/redis.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.1; done
echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on port $PORT"
python3 bench/lib/redis_cost.py "$PORT" "$(pwd)" "$REPS" "$DIR/figures"
source bench/lib/results.sh
mapfile -t FIGURES < "$DIR/figures"
results_append "redis-cost.sh" "REPS=$REPS bench/redis-cost.sh" "${FIGURES[@]}"
