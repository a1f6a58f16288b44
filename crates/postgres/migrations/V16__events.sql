-- The change feed (issue 26): every change an event. The record of a change is written in
-- the change's own transaction, so no event exists without its change and no change without
-- its event (the transactional outbox, kept by the database rather than by each code path):
-- a stock change's record is its ledger entry plus one narrow `ledger_marks` row per
-- statement and SKU (below); a booking's, a hold extension's and a job's is an `events` row
-- written by the triggers at the end of this file.
--
-- Cursors: the sequencer (`PgStore::sequence_events`, one at a time under an advisory lock)
-- turns the committed marks into events and numbers them, with the committed `events` rows
-- still waiting (`cursor` NULL), each tenant's after its `event_cursors.last`, in one
-- statement. A reader sees only numbered events; numbers go only to committed changes, by
-- transactions that commit one after another, so once cursor N is visible every cursor
-- below it is too: no gap, and nothing appears behind a reader. Writers take no counter row.

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

-- The transaction that wrote each ledger entry (PostgreSQL's 64-bit transaction id, 9.28
-- "Transaction ID and Snapshot Information Functions"), so a mark names exactly its own
-- entries even where another transaction's ids of the same SKU fall inside its range
-- (`batched` lanes and locations let two transactions write one SKU at once). Entries
-- written before this version have none: they were never marked.
ALTER TABLE ledger ADD COLUMN xact xid8;
ALTER TABLE ledger ALTER COLUMN xact SET DEFAULT pg_current_xact_id();

-- One row per statement and SKU that wrote ledger entries: the entries' id range, their
-- transaction and the time of the first. This is all a stock change pays for its events
-- inside its row lock; the sequencer derives the events (totals, thresholds, JSON) from the
-- ledger in the background and deletes the mark. `ord` is drawn from the events' own id
-- sequence, so a mark and a directly written event are ordered by when they were written
-- (a hold's `hold.created` comes before its `hold.extended`).
CREATE TABLE ledger_marks (
    ord      bigint PRIMARY KEY DEFAULT nextval('events_id_seq'),
    tenant   text NOT NULL,
    sku      text NOT NULL,
    first_id bigint NOT NULL,
    last_id  bigint NOT NULL,
    xact     xid8 NOT NULL,
    at       timestamptz NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- The sequencer's own levels: each count-tracked SKU's on hand and held at each location
-- after its entries numbered so far, written by the round that numbered them. A round starts
-- each SKU from them, so catching up on a backlog reads each entry once. They start from the
-- stock as it is when this migration commits (filled below, once the ledger is locked); a
-- SKU or location that comes later starts at 0, and all its entries are marked.
CREATE TABLE event_levels (
    tenant   text NOT NULL,
    sku      text NOT NULL,
    location text NOT NULL,
    on_hand  bigint NOT NULL,
    held     bigint NOT NULL,
    PRIMARY KEY (tenant, sku, location)
);

CREATE FUNCTION allot_ledger_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ledger_marks (tenant, sku, first_id, last_id, xact, at)
    SELECT tenant, sku, min(id), max(id), pg_current_xact_id(), min(at)
      FROM fresh GROUP BY tenant, sku ORDER BY min(id);
    RETURN NULL;
END $$;
CREATE TRIGGER ledger_events AFTER INSERT ON ledger REFERENCING NEW TABLE AS fresh
    FOR EACH STATEMENT EXECUTE FUNCTION allot_ledger_mark();

-- `ALTER TABLE ledger` above holds the ledger's lock until this migration commits, so no
-- writer's entry falls between these levels and the first mark.
INSERT INTO event_levels (tenant, sku, location, on_hand, held)
SELECT st.tenant, st.sku, st.location, sum(st.on_hand), sum(st.held)
  FROM stock st JOIN skus k ON k.tenant = st.tenant AND k.sku = st.sku AND k.tracking = 'count'
 GROUP BY st.tenant, st.sku, st.location;

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
