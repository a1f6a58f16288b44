-- One `hold.*` event per hold, naming every line (issue 57). A hold's ledger entries keep their
-- events, renamed `stock.held`, `stock.hold_confirmed`, `stock.hold_released` and
-- `stock.hold_expired` (the trigger below is V12's with those four names); the hold's own
-- `hold.created|confirmed|released|expired` is written by the statement the engine runs once
-- a hold's lines are written or given back (engine/records.rs, `HOLD_EVENT`), so it comes
-- after the events of its lines, as on PostgreSQL.
DROP TRIGGER ledger_id;
CREATE TRIGGER ledger_id AFTER INSERT ON ledger WHEN NEW.id IS NULL BEGIN
    INSERT INTO tenant_ids (tenant, kind, last_id) VALUES (NEW.tenant, 'ledger', 1)
        ON CONFLICT (tenant, kind) DO UPDATE SET last_id = last_id + 1;
    UPDATE ledger SET id = (SELECT last_id FROM tenant_ids WHERE tenant = NEW.tenant AND kind = 'ledger')
     WHERE rid = NEW.rid;
    INSERT INTO event_levels (tenant, sku, location, on_hand, held)
    SELECT NEW.tenant, NEW.sku, NEW.location, NEW.delta, NEW.held_delta WHERE NEW.location IS NOT NULL
        ON CONFLICT (tenant, sku, location)
        DO UPDATE SET on_hand = on_hand + excluded.on_hand, held = held + excluded.held;
    INSERT INTO events (tenant, type, object, data, at_us)
    SELECT NEW.tenant,
           CASE NEW.kind WHEN 'created' THEN 'sku.created'
                         WHEN 'adjustment' THEN 'stock.adjusted'
                         WHEN 'units_received' THEN 'units.received'
                         WHEN 'allocation' THEN CASE WHEN NEW.location IS NULL THEN 'unit_claim.created' ELSE 'allocation.created' END
                         WHEN 'allocation_cancelled' THEN 'allocation.cancelled'
                         WHEN 'returned' THEN 'return.created'
                         WHEN 'hold' THEN 'stock.held'
                         WHEN 'hold_confirmed' THEN 'stock.hold_confirmed'
                         WHEN 'hold_released' THEN 'stock.hold_released'
                         WHEN 'hold_expired' THEN 'stock.hold_expired'
                         WHEN 'transfer' THEN 'transfer.created' END,
           CASE WHEN NEW.kind IN ('created', 'adjustment', 'units_received') OR NEW.ref IS NULL THEN NEW.sku ELSE NEW.ref END,
           json_object('sku', NEW.sku, 'location', NEW.location, 'delta', NEW.delta, 'held_delta', NEW.held_delta,
                       'kind', NEW.kind, 'ref', NEW.ref, 'on_hand', v.on_hand, 'held', v.held,
                       'available', v.on_hand - v.held, 'actor', NEW.actor,
                       'ledger_id', (SELECT id FROM ledger WHERE rid = NEW.rid)),
           NEW.at_us
      FROM sku_levels v WHERE v.tenant = NEW.tenant AND v.sku = NEW.sku;
    -- The SKU as a whole (a transfer moves stock between locations, never changes it; a new SKU
    -- is not "back" in stock: its `sku.created` says what it has).
    -- Crossing 0 either way is one insert: reaching it is sold out, leaving it back in stock.
    INSERT INTO events (tenant, type, object, data, at_us)
    SELECT NEW.tenant, CASE WHEN v.on_hand - v.held <= 0 THEN 'sku.sold_out' ELSE 'sku.back_in_stock' END, NEW.sku,
           json_object('sku', NEW.sku, 'location', NULL, 'available', v.on_hand - v.held), NEW.at_us
      FROM sku_levels v WHERE v.tenant = NEW.tenant AND v.sku = NEW.sku AND NEW.kind NOT IN ('transfer', 'created')
       AND (v.on_hand - v.held <= 0) <> (v.on_hand - v.held - (NEW.delta - NEW.held_delta) <= 0);
    INSERT INTO events (tenant, type, object, data, at_us)
    SELECT NEW.tenant, 'sku.low_stock', NEW.sku,
           json_object('sku', NEW.sku, 'location', NULL, 'available', v.on_hand - v.held,
                       'low_stock_below', v.low_stock_below), NEW.at_us
      FROM sku_levels v WHERE v.tenant = NEW.tenant AND v.sku = NEW.sku AND NEW.kind NOT IN ('transfer', 'created')
       AND v.on_hand - v.held < v.low_stock_below
       AND v.on_hand - v.held - (NEW.delta - NEW.held_delta) >= v.low_stock_below;
    -- One location of a SKU stocked at several (a transfer's two sides always are, even while
    -- the location it stocks first has no stock row yet).
    INSERT INTO events (tenant, type, object, data, at_us)
    SELECT NEW.tenant, CASE WHEN l.available <= 0 THEN 'sku.sold_out' ELSE 'sku.back_in_stock' END, NEW.sku,
           json_object('sku', NEW.sku, 'location', NEW.location, 'available', l.available), NEW.at_us
      FROM (SELECT el.on_hand - el.held AS available FROM event_levels el
             WHERE el.tenant = NEW.tenant AND el.sku = NEW.sku AND el.location = NEW.location) l,
           sku_levels v
     WHERE v.tenant = NEW.tenant AND v.sku = NEW.sku AND (v.located OR NEW.kind = 'transfer') AND NEW.kind <> 'created'
       AND (l.available <= 0) <> (l.available - (NEW.delta - NEW.held_delta) <= 0);
END;
