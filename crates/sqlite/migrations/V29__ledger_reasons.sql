-- Reasons and references on the ledger (issue 58, allot_core::model::reason). `reason` is the
-- reason a client said (adjustments, level sets, moves), NULL for "its kind's" (an
-- allocation is `sold`, a hold `reserved`, ...: `ledger_reasons`, the same table as
-- `LedgerKind::default_reason`); `reference` is the absolute URI of the document behind the
-- change, when the request named one.
ALTER TABLE ledger ADD COLUMN reason TEXT;
ALTER TABLE ledger ADD COLUMN reference TEXT;

CREATE TABLE ledger_reasons (
    kind   TEXT PRIMARY KEY,
    reason TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO ledger_reasons (kind, reason) VALUES
    ('created', 'received'),
    ('adjustment', 'correction'),
    ('units_received', 'received'),
    ('allocation', 'sold'),
    ('allocation_cancelled', 'cancelled'),
    ('returned', 'returned'),
    ('hold', 'reserved'),
    ('hold_confirmed', 'sold'),
    ('hold_released', 'reservation_released'),
    ('hold_expired', 'reservation_expired'),
    ('transfer', 'transfer'),
    ('received', 'received'),
    ('moved', 'correction');

-- V28's trigger; a stock event's `data` now carries the entry's reason and reference and the
-- levels of the SKU and of its location before and after it (allot_core::event::derive,
-- which PostgreSQL's sequencer runs, writes the same fields).
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
           CASE WHEN NEW.kind = 'allocation' AND NEW.location IS NULL THEN 'unit_claim.created'
                ELSE (SELECT type FROM ledger_event_types WHERE kind = NEW.kind) END,
           CASE WHEN NEW.kind IN ('created', 'adjustment', 'units_received') OR NEW.ref IS NULL THEN NEW.sku ELSE NEW.ref END,
           json_object('sku', NEW.sku, 'location', NEW.location, 'delta', NEW.delta, 'held_delta', NEW.held_delta,
                       'kind', NEW.kind, 'ref', NEW.ref,
                       'reason', COALESCE(NEW.reason, (SELECT reason FROM ledger_reasons WHERE kind = NEW.kind)),
                       'reference', NEW.reference, 'on_hand', v.on_hand, 'held', v.held,
                       'available', v.on_hand - v.held,
                       'before', CASE WHEN v.on_hand IS NOT NULL THEN
                           json_object('on_hand', v.on_hand - NEW.delta, 'held', v.held - NEW.held_delta,
                                       'available', v.on_hand - v.held - (NEW.delta - NEW.held_delta)) END,
                       'after', CASE WHEN v.on_hand IS NOT NULL THEN
                           json_object('on_hand', v.on_hand, 'held', v.held, 'available', v.on_hand - v.held) END,
                       'location_before', CASE WHEN l.on_hand IS NOT NULL THEN
                           json_object('on_hand', l.on_hand - NEW.delta, 'held', l.held - NEW.held_delta,
                                       'available', l.on_hand - l.held - (NEW.delta - NEW.held_delta)) END,
                       'location_after', CASE WHEN l.on_hand IS NOT NULL THEN
                           json_object('on_hand', l.on_hand, 'held', l.held, 'available', l.on_hand - l.held) END,
                       'actor', NEW.actor,
                       'ledger_id', (SELECT id FROM ledger WHERE rid = NEW.rid)),
           NEW.at_us
      FROM sku_levels v
      LEFT JOIN event_levels l ON l.tenant = NEW.tenant AND l.sku = NEW.sku AND l.location = NEW.location
                              AND v.on_hand IS NOT NULL
     WHERE v.tenant = NEW.tenant AND v.sku = NEW.sku;
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
