-- `atomic`'s own single statement (stock/mod.rs, `fast_allocate!`) as pgbench runs it: the
-- conditional relative UPDATE of the one stock row, its ledger entry (id from the tenant's
-- ledger sequence, given as `seq`) and the allocation, in one statement and one commit.
-- Run by bench/pgbench/row_queue.sh, which names the SKU and the sequence.
WITH upd AS (
    UPDATE stock SET on_hand = on_hand - 1, version = version + 1
     WHERE tenant = 'default' AND sku = :sku AND bucket = 0 AND on_hand - held >= 1
       AND NOT EXISTS (SELECT 1 FROM stock o WHERE o.tenant = 'default' AND o.sku = :sku AND o.location < stock.location)
       AND NOT EXISTS (SELECT 1 FROM stock o WHERE o.tenant = 'default' AND o.sku = :sku AND o.location > stock.location)
    RETURNING sku, location),
led AS (
    INSERT INTO ledger (id, tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT nextval(:seq::regclass), 'default', sku, -1, 0, 'allocation', 'pgb-' || txid_current(), NULL, location, now() FROM upd),
alo AS (
    INSERT INTO allocations (tenant, id, status, strategy, lines, created_at)
    SELECT 'default', 'pgb-' || txid_current(), 'allocated', 'atomic',
           jsonb_build_array(jsonb_build_object('sku', sku, 'quantity', 1,
                             'from', jsonb_build_array(jsonb_build_object('location', location, 'quantity', 1)))), now()
      FROM upd)
SELECT (SELECT count(*) FROM upd) AS taken;
