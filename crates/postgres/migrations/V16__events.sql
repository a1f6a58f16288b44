-- The change feed (issue 26): every change an event, written by the change's own
-- statement (triggers below), so no event exists without its change and no change without
-- its event — the transactional outbox, kept by the database rather than by each code path.
--
-- Cursors: an event is written with `cursor` NULL. The sequencer (`PgStore::sequence_events`,
-- one at a time under an advisory lock) numbers the committed ones, oldest first, each
-- tenant's after its `event_cursors.last`, in one transaction. A reader sees only numbered
-- events, and numbers are handed out only to committed events by serialized transactions,
-- so once cursor N is visible every event <= N is: the cursor has no gap and nothing
-- appears behind a reader. Writers pay one INSERT; no counter row is taken on their path.

ALTER TABLE skus ADD COLUMN low_stock_below bigint CHECK (low_stock_below IS NULL OR low_stock_below >= 1);
-- When a booking's status or a hold's expiry last changed (the store's clock): the `at` of
-- the events those changes write.
ALTER TABLE bookings ADD COLUMN status_at timestamptz;
ALTER TABLE holds ADD COLUMN extended_at timestamptz;

CREATE TABLE events (
    id     bigserial PRIMARY KEY,
    tenant text NOT NULL,
    cursor bigint,
    type   text NOT NULL,
    object text NOT NULL,
    data   json NOT NULL,
    at     timestamptz NOT NULL
);
CREATE UNIQUE INDEX events_by_cursor ON events (tenant, cursor) WHERE cursor IS NOT NULL;
CREATE INDEX events_unsequenced ON events (id) WHERE cursor IS NULL;

CREATE TABLE event_cursors (
    tenant text PRIMARY KEY,
    last   bigint NOT NULL
);

-- An instant as the API writes it: RFC 3339, UTC, microseconds.
CREATE FUNCTION allot_instant(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- Stock events: one per ledger entry, with the SKU's totals after it, and the threshold
-- events it causes. One statement may write many entries (a `batched` batch): the totals
-- after entry k are today's totals less what the statement's later entries of the same SKU
-- (or SKU and location) changed, so each entry carries its own "after". `data` is `json`
-- (text, as built): the feed serves it as written and never queries inside it.
CREATE FUNCTION allot_ledger_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH skus_now AS MATERIALIZED (
        SELECT k.tenant, k.sku, k.low_stock_below,
               -- A unit-tracked SKU's totals would take a count of its whole pool on every claim:
               -- its events carry the entry's facts, and no totals (NULL) and no thresholds.
               CASE WHEN k.tracking = 'count'
                    THEN (SELECT COALESCE(sum(st.on_hand), 0) FROM stock st WHERE st.tenant = k.tenant AND st.sku = k.sku) END AS on_hand,
               CASE WHEN k.tracking = 'count'
                    THEN (SELECT COALESCE(sum(st.held), 0) FROM stock st WHERE st.tenant = k.tenant AND st.sku = k.sku) END AS held,
               (SELECT count(DISTINCT st.location) FROM stock st WHERE st.tenant = k.tenant AND st.sku = k.sku) > 1 AS located
          FROM skus k WHERE (k.tenant, k.sku) IN (SELECT DISTINCT f.tenant, f.sku FROM fresh f)),
    locations_now AS MATERIALIZED (
        SELECT st.tenant, st.sku, st.location, sum(st.on_hand) AS on_hand, sum(st.held) AS held
          FROM stock st
         WHERE (st.tenant, st.sku, st.location) IN (SELECT DISTINCT f.tenant, f.sku, f.location FROM fresh f)
         GROUP BY 1, 2, 3),
    entries AS (
        SELECT f.id, f.tenant, f.sku, f.location, f.delta, f.held_delta, f.kind, f.ref, f.actor, f.at,
               k.low_stock_below, k.located,
               -- What the statement's later entries changed: all of it less the running sum.
               k.on_hand - (sum(f.delta) OVER of_sku - sum(f.delta) OVER sku_so_far) AS on_hand,
               k.held - (sum(f.held_delta) OVER of_sku - sum(f.held_delta) OVER sku_so_far) AS held,
               l.on_hand - l.held
                 - (sum(f.delta - f.held_delta) OVER at_location - sum(f.delta - f.held_delta) OVER location_so_far)
                 AS location_available
          FROM fresh f
          JOIN skus_now k ON k.tenant = f.tenant AND k.sku = f.sku
          LEFT JOIN locations_now l ON l.tenant = f.tenant AND l.sku = f.sku AND l.location = f.location
        WINDOW of_sku AS (PARTITION BY f.tenant, f.sku),
               sku_so_far AS (PARTITION BY f.tenant, f.sku ORDER BY f.id ROWS UNBOUNDED PRECEDING),
               at_location AS (PARTITION BY f.tenant, f.sku, f.location),
               location_so_far AS (PARTITION BY f.tenant, f.sku, f.location ORDER BY f.id ROWS UNBOUNDED PRECEDING)),
    facts AS (
        SELECT e.*, e.on_hand - e.held AS available,
               e.on_hand - e.held - (e.delta - e.held_delta) AS available_before,
               e.location_available - (e.delta - e.held_delta) AS location_available_before
          FROM entries e),
    written AS (
        SELECT id, 0 AS n, tenant,
               CASE kind WHEN 'created' THEN 'sku.created'
                         WHEN 'adjustment' THEN 'stock.adjusted'
                         WHEN 'units_received' THEN 'units.received'
                         WHEN 'allocation' THEN CASE WHEN location IS NULL THEN 'unit_claim.created' ELSE 'allocation.created' END
                         WHEN 'allocation_cancelled' THEN 'allocation.cancelled'
                         WHEN 'returned' THEN 'return.created'
                         WHEN 'hold' THEN 'hold.created'
                         WHEN 'hold_confirmed' THEN 'hold.confirmed'
                         WHEN 'hold_released' THEN 'hold.released'
                         WHEN 'hold_expired' THEN 'hold.expired'
                         WHEN 'transfer' THEN 'transfer.created' END AS type,
               CASE WHEN kind IN ('created', 'adjustment', 'units_received') OR ref IS NULL THEN sku ELSE ref END AS object,
               json_build_object('sku', sku, 'location', location, 'delta', delta, 'held_delta', held_delta,
                                  'kind', kind, 'ref', ref, 'on_hand', on_hand, 'held', held,
                                  'available', available, 'actor', actor, 'ledger_id', id) AS data,
               at
          FROM facts
        -- The SKU as a whole (a transfer moves stock between locations, never changes it; a new SKU
        -- is not "back" in stock: its `sku.created` says what it has).
        -- Crossing 0 either way is one branch: reaching it is sold out, leaving it back in stock.
        UNION ALL
        SELECT id, 1, tenant, CASE WHEN available <= 0 THEN 'sku.sold_out' ELSE 'sku.back_in_stock' END, sku,
               json_build_object('sku', sku, 'location', NULL, 'available', available), at
          FROM facts WHERE kind NOT IN ('transfer', 'created') AND (available <= 0) <> (available_before <= 0)
        UNION ALL
        SELECT id, 2, tenant, 'sku.low_stock', sku,
               json_build_object('sku', sku, 'location', NULL, 'available', available,
                                  'low_stock_below', low_stock_below), at
          FROM facts WHERE kind NOT IN ('transfer', 'created') AND available < low_stock_below AND available_before >= low_stock_below
        -- One location of a SKU stocked at several.
        UNION ALL
        SELECT id, 3, tenant, CASE WHEN location_available <= 0 THEN 'sku.sold_out' ELSE 'sku.back_in_stock' END, sku,
               json_build_object('sku', sku, 'location', location, 'available', location_available), at
          FROM facts WHERE kind <> 'created' AND located
                       AND (location_available <= 0) <> (location_available_before <= 0))
    INSERT INTO events (tenant, type, object, data, at)
    SELECT tenant, type, object, data, at FROM written ORDER BY id, n;
    RETURN NULL;
END $$;
CREATE TRIGGER ledger_events AFTER INSERT ON ledger REFERENCING NEW TABLE AS fresh
    FOR EACH STATEMENT EXECUTE FUNCTION allot_ledger_events();

CREATE FUNCTION allot_hold_extended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant, 'hold.extended', NEW.id,
            json_build_object('id', NEW.id, 'expires_at', allot_instant(NEW.expires_at)), NEW.extended_at);
    RETURN NULL;
END $$;
CREATE TRIGGER hold_extended AFTER UPDATE OF extended_at ON holds FOR EACH ROW
    WHEN (NEW.extended_at IS DISTINCT FROM OLD.extended_at) EXECUTE FUNCTION allot_hold_extended();

CREATE FUNCTION allot_booking_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant,
            CASE WHEN TG_OP = 'INSERT' THEN 'booking.created' ELSE 'booking.' || NEW.status END,
            NEW.id,
            json_build_object('id', NEW.id, 'resource', NEW.resource, 'start', allot_instant(lower(NEW.during)),
                               'end', allot_instant(upper(NEW.during)), 'holder', NEW.holder, 'status', NEW.status),
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE NEW.status_at END);
    RETURN NULL;
END $$;
CREATE TRIGGER booking_created AFTER INSERT ON bookings FOR EACH ROW EXECUTE FUNCTION allot_booking_events();
CREATE TRIGGER booking_status AFTER UPDATE OF status ON bookings FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status) EXECUTE FUNCTION allot_booking_events();

CREATE FUNCTION allot_job_discarded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant, 'job.discarded', NEW.id::text,
            json_build_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt,
                               'max_attempts', NEW.max_attempts),
            NEW.finalized_at);
    RETURN NULL;
END $$;
CREATE TRIGGER job_discarded AFTER UPDATE OF state ON jobs FOR EACH ROW
    WHEN (NEW.state = 'discarded' AND OLD.state IS DISTINCT FROM 'discarded') EXECUTE FUNCTION allot_job_discarded();
