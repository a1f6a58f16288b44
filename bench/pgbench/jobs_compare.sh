#!/usr/bin/env bash
# allot `skip_locked` single-job claims (the store's claim through the library, 64 clients)
# vs pgbench running the single SKIP LOCKED claim statement (jobs_claim.sql), in one run on one
# database: pgbench, allot (on the store, then through HTTP on an in-process server), pgbench,
# each on its own queue of 300 000 ready jobs.
#   bench/pgbench/jobs_compare.sh postgres://postgres@127.0.0.1:5432/allot_jobs [ALLOT_BIN]
set -euo pipefail
DB=${1:?database url}; ALLOT=${2:-target/release/allot}; HERE=$(dirname "$0")
T=${T:-15}; N=${N:-300000}
"$ALLOT" migrate --database-url "$DB" >/dev/null 2>&1
RUN=$(date +%s)
fill() {
  psql "$DB" -qX -c "INSERT INTO jobs (tenant, queue, state, priority, payload, run_at, max_attempts, created_at)
    SELECT 'default', 'pgbq-$RUN-$1', 'available', 1, json_build_object('i', i), now() - interval '1 second', 25, now()
      FROM generate_series(1, $N) AS i;"
}
fill a; fill b; psql "$DB" -qX -c "ANALYZE jobs; CHECKPOINT;"
pgb() { pgbench -n -c 64 -j 2 -T "$T" -D queue="'pgbq-$RUN-$1'" -f "$HERE/jobs_claim.sql" "$DB" 2>/dev/null | awk '/^tps/ {print $3}'; }
P1=$(pgb a)
OUT=$(ALLOT_LOG=warn "$ALLOT" bench queue --database-url "$DB" --strategy skip_locked --claims-only 64 --pool-size 64 -j "$N" --seconds "$T" --http \
      | tee /dev/stderr)
A=$(echo "$OUT" | awk -F'|' '/\| skip_locked \| store/ {gsub(/ /,"",$5); print $5}')
H=$(echo "$OUT" | awk -F'|' '/\| skip_locked \| HTTP/ {gsub(/ /,"",$5); print $5}')
P2=$(pgb b)
echo "pgbench tps: $P1 / $P2; allot skip_locked claims/s: $A on the store, $H through HTTP"
awk -v a="$A" -v h="$H" -v p1="$P1" -v p2="$P2" 'BEGIN {printf "ratio allot / mean(pgbench) = %.2fx on the store, %.2fx through HTTP\n", a / ((p1 + p2) / 2), h / ((p1 + p2) / 2)}'
