#!/bin/bash
# The agent secret read with API_PROCESSES=1 and 2, alternating (docs/benchmarks.md, "API processes").
# One stack (workers/dev.ts: embedded PostgreSQL, Temporal dev server, a worker); the measured api is
# workers/api.ts started beside it on its own port, once per run, against the same database.
#   ROUNDS=3  BENCH_SECONDS=6  BENCH_CONNECTIONS=16,64  PROCESS_COUNTS="1 2"
# Prints the bench's markdown rows per run on stdout; logs go to a temporary directory, removed after.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
PROCESS_COUNTS=${PROCESS_COUNTS:-1 2}
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
D=$(mktemp -d /tmp/vault-bench-processes-XXXX); chmod 755 "$D"
LIMITS=(RATE_LIMIT_RPS=1000000 RATE_LIMIT_BURST=1000000 LOG_LEVEL=warn HOST=127.0.0.1)
env "${LIMITS[@]}" DATA_DIR="$D" PORT="$(free_port)" TEMPORAL_UI=off DEV_READY_FILE="$D/ready.json" \
  setsid sh bin/node24 workers/dev.ts > "$D/dev.log" 2>&1 &
DEV=$!
trap 'kill -INT $DEV 2>/dev/null; wait $DEV 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 1 240); do [ -s "$D/ready.json" ] && break; sleep 0.5; done
DB=$(node -e "console.log(require('$D/ready.json').databaseUrl)")
TA=$(node -e "console.log(require('$D/ready.json').temporalAddress)")
for round in $(seq 1 "$ROUNDS"); do
  for n in $PROCESS_COUNTS; do
    PORT=$(free_port)
    env "${LIMITS[@]}" DATABASE_URL="$DB" TEMPORAL_ADDRESS="$TA" DATA_DIR="$D" PORT="$PORT" API_PROCESSES="$n" \
      setsid sh bin/node24 workers/api.ts > "$D/api-$round-$n.log" 2>&1 &
    API=$!
    for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$PORT/v1/health" > /dev/null && break; sleep 0.5; done
    echo "round $round, API_PROCESSES=$n"
    BENCH_URL="http://127.0.0.1:$PORT" BENCH_ONLY='GET secret (agent' BENCH_CONNECTIONS="${BENCH_CONNECTIONS:-16,64}" BENCH_SECONDS="${BENCH_SECONDS:-6}" \
      sh bin/node24 test/bench/run.ts 2> /dev/null | grep '^| GET'
    kill -TERM $API; wait $API || true
  done
done
