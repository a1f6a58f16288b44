-- Incoming stock and its receipts (issue 58, allot_core::receiving). An incoming row is stock
-- expected at a location; `received` counts what receipts took of it, never more than its
-- quantity. What is still incoming is `quantity - received`; the partial index holds the open
-- ones, which the SKU answer sums per location.
CREATE TABLE incoming (
    tenant         TEXT NOT NULL,
    id             TEXT NOT NULL,
    sku            TEXT NOT NULL,
    location       TEXT NOT NULL,
    quantity       INTEGER NOT NULL CHECK (quantity > 0),
    received       INTEGER NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= quantity),
    expected_at_us INTEGER,
    reference      TEXT,
    actor          TEXT,
    created_at_us  INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX incoming_open ON incoming (tenant, sku, location) WHERE received < quantity;

-- Each receipt: its ledger entry points at it (`ref`, kind `received`).
CREATE TABLE receipts (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    sku           TEXT NOT NULL,
    location      TEXT NOT NULL,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    incoming_id   TEXT,
    reference     TEXT,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX receipts_incoming ON receipts (tenant, incoming_id) WHERE incoming_id IS NOT NULL;

-- A receipt's ledger entry (kind `received`) has its own event, `stock.received`, whose object
-- is the receipt: V26's trigger with that one case added.
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
                         WHEN 'transfer' THEN 'transfer.created'
                         WHEN 'received' THEN 'stock.received' END,
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
