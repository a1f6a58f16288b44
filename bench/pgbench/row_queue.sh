#!/usr/bin/env bash
# How one hot row serves a queue of writers: pgbench runs the textbook UPDATE (hot_sku.sql)
# and `atomic`'s own statement (atomic_statement.sql) on one SKU's row from C = 1, 2, 4, … 64
# clients (synchronous commit, simple protocol, T seconds each), then allot's `atomic` through
# HTTP at 256 clients with the writers' gate off and on, alternating (`--sku-writers 0` /
# `2`), on a SKU that never runs out and on one that sells out (1000 units: most answers are
# refusals). The gate exists because the row serves 2 writers faster than 64
# (docs/strategies.md, "The writers' gate"). The database must exist (`createdb allot_rowq`).
#   bench/pgbench/row_queue.sh postgres://postgres@127.0.0.1:5432/allot_rowq [ALLOT_BIN]
set -euo pipefail
DB=${1:?database url}; ALLOT=${2:-target/release/allot}; HERE=$(dirname "$0")
PORT=${PORT:-18091}; T=${T:-6}; N=${N:-20000}; CLIENTS=${CLIENTS:-"1 2 4 8 16 32 64"}
"$ALLOT" migrate --database-url "$DB" >/dev/null
serve() {
  ALLOT_LOG=warn "$ALLOT" serve --database-url "$DB" --listen 127.0.0.1:$PORT --sku-writers "$1" >/dev/null 2>&1 &
  SERVER=$!
  for _ in $(seq 100); do curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && return; sleep 0.1; done
  echo "the server did not start" >&2; exit 1
}
# atomic_statement.sql names its SKU as a prefix and a number: this one is the prefix's 0.
PREFIX="rowq-$(date +%s)-"; SKU="${PREFIX}0"
serve 2; trap 'kill $SERVER 2>/dev/null' EXIT
curl -sf -XPOST http://127.0.0.1:$PORT/v1/skus -H 'content-type: application/json' \
  -d "{\"sku\":\"$SKU\",\"on_hand\":100000000}" >/dev/null
SEQ=$(psql "$DB" -AtqX -c "SELECT allot_id_sequence_of('ledger', 'default')")
kill $SERVER; wait $SERVER 2>/dev/null || true
echo "| clients | textbook UPDATE tps | atomic's statement tps |"
echo "|---:|---:|---:|"
for c in $CLIENTS; do
  j=$(( c < 2 ? 1 : 2 ))
  tb=$(pgbench -n -c "$c" -j "$j" -T "$T" -D sku="'$SKU'" -f "$HERE/hot_sku.sql" "$DB" 2>/dev/null | awk '/^tps/ {printf "%.0f", $3}')
  st=$(pgbench -n -c "$c" -j "$j" -T "$T" -D prefix="'$PREFIX'" -D n=1 -D seq="'$SEQ'" -f "$HERE/atomic_statement.sql" "$DB" 2>/dev/null | awk '/^tps/ {printf "%.0f", $3}')
  echo "| $c | $tb | $st |"
done
echo
echo "| allot \`atomic\`, 256 clients | stock | req/s | p99 ms |"
echo "|---|---:|---:|---:|"
for k in 100000000 1000; do
  for w in 0 2 0 2; do
    serve "$w"
    "$ALLOT" bench flash-sale --url http://127.0.0.1:$PORT --strategy atomic -c 256 -k "$k" -n "$N" 2>/dev/null \
      | awk -F'|' -v w="$w" -v k="$k" '/^\| atomic/ {gsub(/ /,"",$3); gsub(/ /,"",$7); print "| --sku-writers " w " | " k " | " $3 " | " $7 " |"}'
    kill $SERVER; wait $SERVER 2>/dev/null || true
  done
done
