-- The change feed (issue 26), as on PostgreSQL: every change an event written by the
-- change's own statement (the triggers below), so no event exists without its change and
-- no change without its event. SQLite has one writer, so each event takes its tenant's next
-- cursor in the writing transaction (`event_cursors`, like `tenant_ids`): transactions
-- commit one at a time, in cursor order, and the cursor has no gap.

ALTER TABLE skus ADD COLUMN low_stock_below INTEGER CHECK (low_stock_below IS NULL OR low_stock_below >= 1);
-- When a booking's status or a hold's expiry last changed (the store's clock).
ALTER TABLE bookings ADD COLUMN status_at_us INTEGER;
ALTER TABLE holds ADD COLUMN extended_at_us INTEGER;

CREATE TABLE events (
    rid    INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    cursor INTEGER,
    type   TEXT NOT NULL,
    object TEXT NOT NULL,
    data   TEXT NOT NULL,
    at_us  INTEGER NOT NULL
);
CREATE UNIQUE INDEX events_by_cursor ON events (tenant, cursor);

CREATE TABLE event_cursors (
    tenant TEXT PRIMARY KEY,
    last   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER events_cursor AFTER INSERT ON events WHEN NEW.cursor IS NULL BEGIN
    INSERT INTO event_cursors (tenant, last) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET last = last + 1;
    UPDATE events SET cursor = (SELECT last FROM event_cursors WHERE tenant = NEW.tenant) WHERE rid = NEW.rid;
END;

-- Each count-tracked SKU's on hand and held at each location as its ledger entries have made
-- them, entry by entry: the "after" of each stock event, in ledger order. (The stock rows
-- cannot say it: a request that takes from several buckets or locations changes them all
-- before it writes its entries.) It starts from the stock as it is now (no write is in
-- flight during a migration); a SKU or location that comes later starts at 0, and its first
-- entry is what it got.
CREATE TABLE event_levels (
    tenant   TEXT NOT NULL,
    sku      TEXT NOT NULL,
    location TEXT NOT NULL,
    on_hand  INTEGER NOT NULL,
    held     INTEGER NOT NULL,
    PRIMARY KEY (tenant, sku, location)
) WITHOUT ROWID;
INSERT INTO event_levels (tenant, sku, location, on_hand, held)
SELECT st.tenant, st.sku, st.location, sum(st.on_hand), sum(st.held)
  FROM stock st JOIN skus k ON k.tenant = st.tenant AND k.sku = st.sku AND k.tracking = 'count'
 GROUP BY st.tenant, st.sku, st.location;

-- A count-tracked SKU's totals after its latest entry, and whether it is stocked at more than
-- one location. A unit-tracked SKU's would take a count of its whole pool on every claim:
-- NULL (its events carry the entry's facts, no totals and no thresholds).
CREATE VIEW sku_levels AS
SELECT k.tenant, k.sku, k.low_stock_below,
       CASE WHEN k.tracking = 'count'
            THEN (SELECT coalesce(sum(el.on_hand), 0) FROM event_levels el WHERE el.tenant = k.tenant AND el.sku = k.sku) END AS on_hand,
       CASE WHEN k.tracking = 'count'
            THEN (SELECT coalesce(sum(el.held), 0) FROM event_levels el WHERE el.tenant = k.tenant AND el.sku = k.sku) END AS held,
       (SELECT count(DISTINCT st.location) FROM stock st WHERE st.tenant = k.tenant AND st.sku = k.sku) > 1 AS located
  FROM skus k;

-- Stock events: the entry's own, then the thresholds it crossed. The entry first moves its
-- location's `event_levels`, so each INSERT below reads the totals right after it. The
-- ledger's per-tenant id is given first (this replaces V11's `ledger_id`, so the order of the
-- two is fixed).
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
                         WHEN 'hold' THEN 'hold.created'
                         WHEN 'hold_confirmed' THEN 'hold.confirmed'
                         WHEN 'hold_released' THEN 'hold.released'
                         WHEN 'hold_expired' THEN 'hold.expired'
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

-- Instants in `data` are RFC 3339, UTC, with microseconds, as PostgreSQL's `allot_instant`.
CREATE TRIGGER hold_extended AFTER UPDATE OF extended_at_us ON holds
    WHEN NEW.extended_at_us IS NOT OLD.extended_at_us BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'hold.extended', NEW.id,
            json_object('id', NEW.id, 'expires_at', strftime('%Y-%m-%dT%H:%M:%S', NEW.expires_at_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.expires_at_us % 1000000)), NEW.extended_at_us);
END;

CREATE TRIGGER booking_created AFTER INSERT ON bookings BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.created', NEW.id,
            json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status),
            NEW.created_at_us);
END;
CREATE TRIGGER booking_status AFTER UPDATE OF status ON bookings WHEN NEW.status IS NOT OLD.status BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.' || NEW.status, NEW.id,
            json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status),
            NEW.status_at_us);
END;

CREATE TRIGGER job_discarded AFTER UPDATE OF state ON jobs
    WHEN NEW.state = 'discarded' AND OLD.state IS NOT 'discarded' BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'job.discarded', CAST(NEW.id AS TEXT),
            json_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt, 'max_attempts', NEW.max_attempts),
            NEW.finalized_at_us);
END;
