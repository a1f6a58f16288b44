#!/usr/bin/env bash
# allot `exclusion` (or STRATEGY=batched) through the HTTP API vs pgbench running the advisory-lock check-then-insert
# transaction (bookings_advisory.sql), in one run on one database: 64 clients, 100 resources,
# random 3-day ranges over a 10-year horizon. Order: pgbench, allot, pgbench.
#   bench/pgbench/bookings_compare.sh postgres://postgres@127.0.0.1:5432/allot_bookings [ALLOT_BIN]
set -euo pipefail
DB=${1:?database url}; ALLOT=${2:-target/release/allot}; HERE=$(dirname "$0")
PORT=18093; T=${T:-15}; N=${N:-40000}; STRATEGY=${STRATEGY:-exclusion}
"$ALLOT" migrate --database-url "$DB" >/dev/null 2>&1
psql "$DB" -qX -c "CHECKPOINT;"
ALLOT_LOG=warn "$ALLOT" serve --database-url "$DB" --listen 127.0.0.1:$PORT >/dev/null 2>&1 &
SERVER=$!; trap 'kill $SERVER' EXIT; sleep 1
RUN=$(date +%s)
pgb() { pgbench -n -c 64 -j 2 -T "$T" -D prefix="'pgb-$RUN-$1-'" -f "$HERE/bookings_advisory.sql" "$DB" 2>/dev/null | awk '/^tps/ {print $3}'; }
P1=$(pgb a)
A=$("$ALLOT" bench bookings --url http://127.0.0.1:$PORT --strategy "$STRATEGY" -c 64 -n "$N" --resources 100 --days 3 --horizon-days 3650 \
      | tee /dev/stderr | awk -F'|' '/\| bookings/ {gsub(/ /,"",$4); print $4}')
P2=$(pgb b)
echo "pgbench tps: $P1 / $P2; allot $STRATEGY req/s: $A"
awk -v a="$A" -v p1="$P1" -v p2="$P2" 'BEGIN {printf "ratio allot / mean(pgbench) = %.2fx\n", a / ((p1 + p2) / 2)}'
