-- A hold's own event (`hold.*`, V39) without a PL/pgSQL call per row at the commit, for the
-- writers every per-request hold goes through (issue 57: measured, V39's deferred triggers
-- cost `holds` a sixth of its throughput, their work done at the commit with the hold's stock
-- rows still locked).
--
-- One implementation of the event's `data` in SQL, `allot_hold_event_data`, serves V39's
-- trigger (kept for every other writer: unit claims' holds, a status changed by hand) and
-- `allot_finish_holds`, which now writes the events of the holds it finishes itself, in one
-- statement for all of them, as its last (after its ledger entries, so after their marks:
-- the feed's order V39 gave them). It tells the trigger to skip its rows the way a `batched`
-- lane does, only while it runs: it sets the setting back as it found it, so a caller's
-- transaction (`allot.confirm_hold`) that goes on to change holds by other means still has
-- the trigger write their events. A new hold made through the API or `hold_in` has its event
-- written by the server (allot_postgres holds/created.rs), in the round trip of its row, and
-- the setting put back likewise.
--
-- The setting now holds the writing transaction's id (`pg_current_xact_id()`), as V28's
-- `allot.ledger_marked` does, instead of V41's `written`: a value left in a session or a
-- role's defaults (`ALTER ROLE … SET allot.hold_events = …`) can never stop the trigger
-- writing another transaction's events.
DROP TRIGGER hold_created ON holds;
CREATE CONSTRAINT TRIGGER hold_created AFTER INSERT ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (current_setting('allot.hold_events', true) IS DISTINCT FROM pg_current_xact_id()::text)
    EXECUTE FUNCTION allot_hold_event();
DROP TRIGGER hold_finished ON holds;
CREATE CONSTRAINT TRIGGER hold_finished AFTER UPDATE OF status ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status AND NEW.status <> 'held'
                       AND current_setting('allot.hold_events', true) IS DISTINCT FROM pg_current_xact_id()::text)
    EXECUTE FUNCTION allot_hold_event();
--
-- The bookings in byte order of their resource, then range and id, as V41. They have a function
-- of their own so that `allot_hold_event_data` has no sub-select and is inlined into the
-- statements that call it: as a function PostgreSQL could not inline, it was planned again at
-- every call and cost more than the rest of a confirm (measured with pgbench: 0.44 ms a call,
-- against 0.02 ms inlined).
CREATE FUNCTION allot_hold_event_bookings(p_tenant text, p_id text) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT coalesce(json_agg(json_build_object(
                'id', b.id, 'resource', b.resource, 'start', allot_instant(lower(b.during)),
                'end', allot_instant(upper(b.during)), 'quantity', b.quantity)
              ORDER BY b.resource COLLATE "C", lower(b.during), upper(b.during), b.id), '[]')
      FROM bookings b WHERE b.tenant = p_tenant AND b.hold_id = p_id
$$;

-- A hold's event `data` from its row `h`: `id`, `kind`, `status`, `expires_at`, `lines`,
-- `bookings` (`[]` but for a mixed hold).
CREATE FUNCTION allot_hold_event_data(h holds) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT json_build_object(
        'id', h.id, 'kind', h.kind, 'status', h.status,
        'expires_at', allot_instant(h.expires_at), 'lines', h.lines,
        'bookings', CASE WHEN h.kind = 'mixed' THEN allot_hold_event_bookings(h.tenant, h.id) ELSE '[]' END)
$$;

CREATE OR REPLACE FUNCTION allot_hold_event() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant,
            CASE WHEN TG_OP = 'INSERT' THEN 'hold.created' ELSE 'hold.' || NEW.status END,
            NEW.id, allot_hold_event_data(NEW),
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE coalesce(NEW.finished_at, now()) END);
    RETURN NULL;
END $$;

-- V37's function keeps its body under a new name; `allot_finish_holds`, which every finisher
-- calls by name (V35's and V38's functions, the sweeper, the lanes' overdue expiry), wraps it:
-- the trigger told to skip the rows it finishes, then their events written, by id, after
-- their ledger entries.
ALTER FUNCTION allot_finish_holds(text, text[], text, timestamptz, text, text) RENAME TO allot_finish_hold_rows;
CREATE FUNCTION allot_finish_holds(p_tenant text, p_ids text[], p_to text, p_at timestamptz,
                                   p_actor text, p_kind text)
RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    done text[];
    prior text := coalesce(current_setting('allot.hold_events', true), '');
BEGIN
    PERFORM set_config('allot.hold_events', pg_current_xact_id()::text, true);
    done := allot_finish_hold_rows(p_tenant, p_ids, p_to, p_at, p_actor, p_kind);
    PERFORM set_config('allot.hold_events', prior, true);
    INSERT INTO events (tenant, type, object, data, at)
    SELECT h.tenant, 'hold.' || h.status, h.id, allot_hold_event_data(h), p_at
      FROM holds h WHERE h.tenant = p_tenant AND h.id = ANY(done) ORDER BY h.id;
    RETURN done;
END $$;
