-- `atomic`'s own single statement (stock/mod.rs, `fast_allocate!`) as pgbench runs it, on a
-- random one of :n SKUs named :prefix || 0 .. :prefix || (:n - 1) (n=1: one hot SKU,
-- :prefix || 0): the conditional relative UPDATE, the ledger entry (id from the tenant's
-- ledger sequence, given as `seq`) with its mark written in the statement and
-- `allot.ledger_marked` set to the transaction's id (V28), and the allocation. Beside
-- `spread.sql` (the textbook UPDATE on the same SKUs):
--   pgbench -M prepared -n -c 64 -j 2 -T 6 -D prefix=S- -D n=10000 \
--     -D seq=$(psql DB_URL -Atc "SELECT allot_id_sequence_of('ledger', 'default')") \
--     -f bench/pgbench/atomic_statement.sql DB_URL
-- (prepared mode passes the variables as parameters, so give them without quotes; the simple
-- protocol needs them quoted: -D prefix="'S-'"). bench/pgbench/row_queue.sh runs it on one
-- hot SKU. Without the line `WHERE set_config(…)` and the `mark` CTE, the statement is marked
-- by the trigger instead, as before V28. Since V29 the statement reads `single_location` on
-- its row instead of probing for other locations. `allot bench compare` runs a copy made
-- from the statement itself (the spread row "atomic, its statement alone").
\set i random(0, :n - 1)
WITH upd AS (
    UPDATE stock SET on_hand = on_hand - 1, version = version + 1
     WHERE tenant = 'default' AND sku = (:prefix::text || :i::text) AND bucket = 0 AND on_hand - held >= 1
       AND single_location
    RETURNING sku, location),
led AS (
    INSERT INTO ledger (id, tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT nextval(:seq::text::regclass), 'default', sku, -1, 0, 'allocation', 'pgb-' || txid_current(), NULL, location, now() FROM upd
     WHERE set_config('allot.ledger_marked', pg_current_xact_id()::text, true) IS NOT NULL
    RETURNING id, sku, at),
mark AS (
    INSERT INTO ledger_marks (tenant, sku, first_id, last_id, xact, at)
    SELECT 'default', sku, id, id, pg_current_xact_id(), at FROM led),
alo AS (
    INSERT INTO allocations (tenant, id, status, strategy, lines, created_at)
    SELECT 'default', 'pgb-' || txid_current(), 'allocated', 'atomic',
           jsonb_build_array(jsonb_build_object('sku', sku, 'quantity', 1,
                             'from', jsonb_build_array(jsonb_build_object('location', location, 'quantity', 1)))), now()
      FROM upd)
SELECT (SELECT count(*) FROM upd) AS taken;
