-- Quantity states (issue 58, allot_core::states). The sellable part of on hand (available +
-- held) stays in `stock`; the unsellable states (`damaged`, `quality_control`,
-- `safety_stock`) are counted here, one row per (SKU, location, state), never below zero. A
-- move writes one `moved` ledger entry (its `ref` the move) whose delta is what it did to the
-- sellable part, and one `moves` row, which the audit sums per state against these counts.
CREATE TABLE stock_states (
    tenant   TEXT NOT NULL,
    sku      TEXT NOT NULL,
    location TEXT NOT NULL,
    state    TEXT NOT NULL CHECK (state IN ('damaged', 'quality_control', 'safety_stock')),
    quantity INTEGER NOT NULL CHECK (quantity >= 0),
    PRIMARY KEY (tenant, sku, location, state)
);

CREATE TABLE moves (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    sku           TEXT NOT NULL,
    location      TEXT NOT NULL,
    from_state    TEXT NOT NULL,
    to_state      TEXT NOT NULL CHECK (to_state <> from_state),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    reason        TEXT NOT NULL,
    reference     TEXT,
    actor         TEXT,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX moves_sku ON moves (tenant, sku, location);

-- The event type of each ledger kind's own event (a unit claim's `allocation` entry, which
-- has no location, is `unit_claim.created`): a new kind is a row here, not another copy of
-- the trigger. `moved` is the first added this way.
CREATE TABLE ledger_event_types (
    kind TEXT PRIMARY KEY,
    type TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO ledger_event_types (kind, type) VALUES
    ('created', 'sku.created'),
    ('adjustment', 'stock.adjusted'),
    ('units_received', 'units.received'),
    ('allocation', 'allocation.created'),
    ('allocation_cancelled', 'allocation.cancelled'),
    ('returned', 'return.created'),
    ('hold', 'stock.held'),
    ('hold_confirmed', 'stock.hold_confirmed'),
    ('hold_released', 'stock.hold_released'),
    ('hold_expired', 'stock.hold_expired'),
    ('transfer', 'transfer.created'),
    ('received', 'stock.received'),
    ('moved', 'stock.moved');

-- V27's trigger, its event type looked up instead of spelled out.
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
