#!/usr/bin/env bash
# A sold-out session's storm: allot's capacity path through the HTTP API, per request
# (`exclusion`, the default) and `batched`, against pgbench running the textbook transaction
# (capacity_textbook.sql: lock the slot rows, count, insert), in one run on one database:
# 64 clients, R resources of capacity CAP per night, 1-night stays over D nights. Order:
# pgbench, allot exclusion, allot batched, pgbench. Every allot request is a booking asked
# for (made or refused `capacity_exceeded`); pgbench's tps counts transactions the same way.
#   bench/pgbench/capacity_compare.sh postgres://postgres@127.0.0.1:5432/allot_capacity [ALLOT_BIN]
set -euo pipefail
DB=${1:?database url}; ALLOT=${2:-target/release/allot}; HERE=$(dirname "$0")
PORT=18094; T=${T:-15}; N=${N:-20000}; R=${R:-4}; D=${D:-30}; CAP=${CAP:-50}
"$ALLOT" migrate --database-url "$DB" >/dev/null 2>&1
psql "$DB" -qX -c "CREATE TABLE IF NOT EXISTS capacity_slots (resource text, night date, capacity int,
  PRIMARY KEY (resource, night)); CHECKPOINT;"
ALLOT_LOG=warn "$ALLOT" serve --database-url "$DB" --listen 127.0.0.1:$PORT >/dev/null 2>&1 &
SERVER=$!; trap 'kill $SERVER' EXIT; sleep 1
RUN=$(date +%s)
pgb() {
  local prefix="pgb-$RUN-$1-"
  psql "$DB" -qX -c "INSERT INTO capacity_slots SELECT '$prefix' || r, date '2030-01-01' + d, $CAP
                     FROM generate_series(0, $R - 1) r, generate_series(0, $D - 1) d"
  pgbench -n -c 64 -j 2 -T "$T" -D prefix="'$prefix'" -D resources="$R" -D nights="$D" \
    -f "$HERE/capacity_textbook.sql" "$DB" 2>/dev/null | awk '/^tps/ {print $3}'
}
allot() {
  "$ALLOT" bench bookings --url http://127.0.0.1:$PORT --strategy "$1" -c 64 -n "$N" --resources "$R" --days 1 \
    --horizon-days "$D" --capacity "$CAP" | tee /dev/stderr | awk -F'|' '/\| bookings/ {gsub(/ /,"",$4); print $4}'
}
P1=$(pgb a)
E=$(allot exclusion)
B=$(allot batched)
P2=$(pgb b)
echo "pgbench textbook tps: $P1 / $P2; allot req/s: exclusion (per request) $E, batched $B"
awk -v e="$E" -v b="$B" -v p1="$P1" -v p2="$P2" 'BEGIN {m = (p1 + p2) / 2;
  printf "ratio per-request / mean(pgbench) = %.2fx; batched / mean(pgbench) = %.2fx; batched / per-request = %.2fx\n", e / m, b / m, b / e}'
