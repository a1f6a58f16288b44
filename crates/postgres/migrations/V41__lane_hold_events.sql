-- A `batched` lane writes the events of the holds it makes (`hold.created`) and finishes itself, in one statement per
-- batch (engine/batched/writes.rs, SQL_HOLD_EVENTS), after its ledger write and before its
-- COMMIT, so in the feed's order V39 gave them (after the events of their lines). V39's
-- trigger built each event's JSON in PL/pgSQL, one row at a time, at the commit, with the
-- batch's stock rows still locked: measured, it cost `holds batched` a quarter of its
-- throughput (docs/benchmarks-history.md). A transaction that writes the events of the holds
-- it makes or finishes says so with `SET LOCAL allot.hold_events = 'written'` before the first of them,
-- and the trigger skips their rows (its WHEN runs as each row is written; the setting lasts
-- until that transaction ends). Every other writer of holds is unchanged.
DROP TRIGGER hold_created ON holds;
CREATE CONSTRAINT TRIGGER hold_created AFTER INSERT ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (current_setting('allot.hold_events', true) IS DISTINCT FROM 'written')
    EXECUTE FUNCTION allot_hold_event();
-- The same for the events of the holds a lane finishes (`hold.confirmed`, `hold.released`).
DROP TRIGGER hold_finished ON holds;
CREATE CONSTRAINT TRIGGER hold_finished AFTER UPDATE OF status ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status AND NEW.status <> 'held'
                       AND current_setting('allot.hold_events', true) IS DISTINCT FROM 'written')
    EXECUTE FUNCTION allot_hold_event();

-- The event's bookings in byte order of their resource (COLLATE "C"), then by range and id:
-- the order the lane's events list them in (Rust compares strings byte-wise) and SQLite's,
-- whatever the database's collation; V39 sorted by the collation's order, and two bookings
-- of one resource and range in no order at all.
CREATE OR REPLACE FUNCTION allot_hold_event() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant,
            CASE WHEN TG_OP = 'INSERT' THEN 'hold.created' ELSE 'hold.' || NEW.status END,
            NEW.id,
            json_build_object(
                'id', NEW.id, 'kind', NEW.kind, 'status', NEW.status,
                'expires_at', allot_instant(NEW.expires_at), 'lines', NEW.lines,
                'bookings', CASE WHEN NEW.kind = 'mixed' THEN
                    (SELECT coalesce(json_agg(json_build_object(
                                'id', b.id, 'resource', b.resource, 'start', allot_instant(lower(b.during)),
                                'end', allot_instant(upper(b.during)), 'quantity', b.quantity)
                              ORDER BY b.resource COLLATE "C", lower(b.during), upper(b.during), b.id), '[]')
                       FROM bookings b WHERE b.tenant = NEW.tenant AND b.hold_id = NEW.id)
                    ELSE '[]' END),
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE coalesce(NEW.finished_at, now()) END);
    RETURN NULL;
END $$;

