#!/usr/bin/env bash
# The job queue against graphile-worker (pinned in bench/peers/graphile-worker/package.json):
# N no-op jobs end to end with the workers running while the jobs are enqueued, allot's
# worker pool (`allot bench queue`, straight on the store) and graphile-worker's runner
# alternating (ABBA over ROUNDS pairs), each run on a fresh database beside the one given.
# Prints each run's completed jobs/s and allot's mean over the peer's.
#   bench/peers/queue_compare.sh postgres://postgres@127.0.0.1:5432/postgres [ALLOT_BIN]
#   JOBS=50000 ROUNDS=2 MODE=both|after (`after`: both enqueue everything first, then work)
#   KEEP=1: allot keeps its completed jobs (by default it drops them, as the peer does)
#   ALLOT_SHAPE="-p 4 -w 4 --concurrency 200 --claim-batch 100 --single-fraction 0.01" (allot's
#   own `bench queue` defaults instead of the peer's shape)
set -euo pipefail
BASE=${1:?database url}; ALLOT=${2:-target/release/allot}
HERE=$(cd "$(dirname "$0")" && pwd); JOBS=${JOBS:-50000}; ROUNDS=${ROUNDS:-2}; MODE=${MODE:-both}
if [ ! -d "$HERE/graphile-worker/node_modules" ]; then (cd "$HERE/graphile-worker" && npm ci --no-audit --no-fund >/dev/null); fi
OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT
fresh() {
  psql "$BASE" -qAtc "DROP DATABASE IF EXISTS $1" >/dev/null
  psql "$BASE" -qAtc "CREATE DATABASE $1" >/dev/null
  echo "${BASE%/*}/$1"
}
allot_run() {
  local url; url=$(fresh allot_peer_allot)
  # Shaped like the peer: one producer enqueuing batches of 1000 (no single-job enqueues),
  # 800 slots (a job keeps its slot until its completion is flushed) in two pools that each
  # claim up to 250 at a time, so one claims while the other's statement runs (the peer
  # refills its local queue of 500 while its jobs run). ALLOT_SHAPE replaces these. A
  # completion deletes the job, as the peer's does (`keep_completed: false`), unless KEEP=1.
  local shape=${ALLOT_SHAPE:-"-p 1 --batch 1000 --single-fraction 0 -w 2 --concurrency 400 --claim-batch 250"}
  local keep="--drop-completed"; [ "${KEEP:-0}" = 1 ] && keep=""
  local first=""; [ "$MODE" = after ] && first="--enqueue-first"
  # shellcheck disable=SC2086
  ALLOT_LOG=warn "$ALLOT" bench queue --database-url "$url" --strategy skip_locked -j "$JOBS" \
    --kill-workers 0 --fail-fraction 0 $shape $keep $first --json "$OUT/allot.json" >/dev/null 2>&1
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))[0]["completed_per_s"]))' "$OUT/allot.json"
}
peer_run() {
  local url; url=$(fresh allot_peer_graphile)
  (cd "$HERE/graphile-worker" && DATABASE_URL=$url JOBS=$JOBS MODE=$MODE node run.mjs) |
    python3 -c 'import json,sys; print(round(json.loads(sys.stdin.read().strip().splitlines()[-1])["completed_per_s"]))'
}
A=(); P=()
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then A+=("$(allot_run)"); P+=("$(peer_run)"); else P+=("$(peer_run)"); A+=("$(allot_run)"); fi
  echo "round $r: allot ${A[-1]} jobs/s, graphile-worker ${P[-1]} jobs/s"
done
psql "$BASE" -qAtc "DROP DATABASE IF EXISTS allot_peer_allot" -c "DROP DATABASE IF EXISTS allot_peer_graphile" >/dev/null
python3 - "${A[*]}" "${P[*]}" "$JOBS" <<'PY'
import sys
a = [float(x) for x in sys.argv[1].split()]; p = [float(x) for x in sys.argv[2].split()]
ma, mp = sum(a) / len(a), sum(p) / len(p)
print(f"jobs={sys.argv[3]}: allot {ma:.0f} jobs/s, graphile-worker {mp:.0f} jobs/s, allot / graphile-worker = {ma / mp:.2f}x")
PY
