-- One `hold.*` event per hold, naming every line (issue 57). Until now a hold's events were its
-- ledger entries' (one `hold.created` per stock line, none for its booking lines), so a reader
-- could not tell from the feed which lines made one hold. The entries keep their events under
-- `stock.held`, `stock.hold_confirmed`, `stock.hold_released` and `stock.hold_expired` (the
-- sequencer names them, allot_core::event::derive); the hold's own event is written here, by
-- the database, for every path that makes or finishes a hold (the API's, `batched` lanes, the
-- unit claims' statement, `allot.confirm_hold` in a caller's transaction).
--
-- The triggers are deferred to the commit (CREATE CONSTRAINT TRIGGER … INITIALLY DEFERRED):
-- the hold's row is written before some of its lines (its stock lines' entries) and finished
-- before its lines are given back, and the event, written last, comes after the events of its
-- lines in the feed, whatever order the statements ran in. `data`: `id`, `kind`, `status`,
-- `expires_at`, `lines` (the hold's own `lines`: a partial confirm has shrunk them to what it
-- confirmed before its status changes), `bookings` (its booking lines, `[]` without any).
-- A deferred trigger runs at the commit, outside the statement that fired it: with the
-- session's search_path, which in a caller's transaction (`allot.confirm_hold`) need not name
-- allot's schema, hence the function's own (SET search_path FROM CURRENT, as V35's). A status
-- changed by hand, without `finished_at`, is stamped with the database's clock. A caller that
-- runs SET CONSTRAINTS ALL IMMEDIATE has the event written at once instead (a hold's
-- `hold.created` then comes before its stock lines' entries).
CREATE FUNCTION allot_hold_event() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
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
                              ORDER BY b.resource, lower(b.during), upper(b.during)), '[]')
                       FROM bookings b WHERE b.tenant = NEW.tenant AND b.hold_id = NEW.id)
                    ELSE '[]' END),
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE coalesce(NEW.finished_at, now()) END);
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER hold_created AFTER INSERT ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION allot_hold_event();
CREATE CONSTRAINT TRIGGER hold_finished AFTER UPDATE OF status ON holds DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.status IS DISTINCT FROM OLD.status AND NEW.status <> 'held')
    EXECUTE FUNCTION allot_hold_event();
