#!/usr/bin/env bash
# allot's unit claims (`skip_locked`, or STRATEGY=batched) through the HTTP API vs pgbench running the single-statement claim, in
# one run, on identical 1,000,000-unit pools of one database (64 clients, 3 units per claim,
# ordered by received_at, location). Pools are loaded by SQL before any timing starts, so no
# run pays for another's bulk load.
#   bench/pgbench/units_compare.sh postgres://postgres@127.0.0.1:5432/allot_units [ALLOT_BIN]
set -euo pipefail
DB=${1:?database url}; ALLOT=${2:-target/release/allot}; HERE=$(dirname "$0")
PORT=18090; T=${T:-15}; N=${N:-25000}; STRATEGY=${STRATEGY:-skip_locked}
"$ALLOT" migrate --database-url "$DB" >/dev/null 2>&1
pool() {
  psql "$DB" -qX -c "INSERT INTO skus (tenant, sku, buckets, tracking, created_at) VALUES ('default', '$1', 1, 'units', now()) ON CONFLICT DO NOTHING;
    INSERT INTO units (tenant, sku, serial, location, received_at)
      SELECT 'default', '$1', 'SN' || lpad(i::text, 9, '0'), 'A' || lpad((i % 50)::text, 2, '0'),
             timestamptz '2026-01-01' + ((i % 336) || ' days')::interval FROM generate_series(0, 999999) AS i;
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, at) VALUES ('default', '$1', 1000000, 0, 'units_received', now());"
}
RUN=$(date +%s); for p in A B C; do pool "cmp-$RUN-$p"; done
psql "$DB" -qX -c "ANALYZE units; CHECKPOINT;"
ALLOT_LOG=warn "$ALLOT" serve --database-url "$DB" --listen 127.0.0.1:$PORT >/dev/null 2>&1 &
SERVER=$!; trap 'kill $SERVER' EXIT; sleep 1
pgb() { pgbench -n -c 64 -j 2 -T "$T" -D sku="'cmp-$RUN-$1'" -f "$HERE/units_skip_locked.sql" "$DB" 2>/dev/null | awk '/^tps/ {print $3}'; }
P1=$(pgb A)
A=$("$ALLOT" bench units --url http://127.0.0.1:$PORT --strategy "$STRATEGY" --pool-sku "cmp-$RUN-B" \
      -n "$N" --min-quantity 3 --max-quantity 3 --scarce-units 200 | tee /dev/stderr | awk -F'|' '/units\/large/ {gsub(/ /,"",$4); print $4}')
P2=$(pgb C)
echo "pgbench tps: $P1 / $P2; allot $STRATEGY req/s: $A"
awk -v a="$A" -v p1="$P1" -v p2="$P2" 'BEGIN {printf "ratio allot / mean(pgbench) = %.2fx\n", a / ((p1 + p2) / 2)}'
