-- Finishing holds (a confirm, a release, an expiry) as one function, so one round trip does
-- what five statements did from Rust (allot_postgres engine/overdue.rs), and so that what the
-- caller's own transaction will run (`allot.confirm_hold`, issue 57) is this very code. For
-- holds the caller has locked and found `held`: mark them `p_to` at `p_at`, give their stock
-- back to the buckets they took (for `confirmed`, take it out of `on_hand` too; stock rows
-- locked in (sku, bucket) order first: UPDATE … FROM promises no order), return or allocate
-- their units, and write one ledger entry (`p_kind`, by `p_actor`) per line. Conditional on
-- `status = 'held'`, so each hold is finished exactly once; returns the ids finished.
CREATE FUNCTION allot_finish_holds(p_tenant text, p_ids text[], p_to text, p_at timestamptz,
                                   p_actor text, p_kind text)
RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    done text[];
    confirm boolean := p_to = 'confirmed';
BEGIN
    WITH finished AS (
        UPDATE holds SET status = p_to, finished_at = p_at
         WHERE tenant = p_tenant AND id = ANY(p_ids) AND status = 'held' RETURNING id)
    SELECT coalesce(array_agg(id), '{}') INTO done FROM finished;
    IF cardinality(done) = 0 THEN
        RETURN done;
    END IF;
    PERFORM 1 FROM stock s
      JOIN (SELECT DISTINCT sku, bucket FROM hold_lines
             WHERE tenant = p_tenant AND hold_id = ANY(done) AND bucket >= 0) d
        ON s.tenant = p_tenant AND s.sku = d.sku AND s.bucket = d.bucket
     ORDER BY s.sku, s.bucket FOR UPDATE OF s;
    UPDATE stock s SET held = s.held - d.q,
           on_hand = s.on_hand - CASE WHEN confirm THEN d.q ELSE 0 END,
           version = s.version + 1
      FROM (SELECT sku, bucket, sum(quantity)::int8 AS q FROM hold_lines
             WHERE tenant = p_tenant AND hold_id = ANY(done) AND bucket >= 0 GROUP BY sku, bucket) d
     WHERE s.tenant = p_tenant AND s.sku = d.sku AND s.bucket = d.bucket;
    UPDATE units SET status = CASE WHEN confirm THEN 'allocated' ELSE 'available' END,
           claim_id = CASE WHEN confirm THEN claim_id END
     WHERE tenant = p_tenant AND claim_id = ANY(done) AND status = 'held';
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT hl.tenant, hl.sku, CASE WHEN confirm THEN -hl.quantity ELSE 0 END, -hl.quantity, p_kind,
           hl.hold_id, p_actor, st.location, p_at
      FROM hold_lines hl
      LEFT JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
     WHERE hl.tenant = p_tenant AND hl.hold_id = ANY(done)
     ORDER BY hl.hold_id, hl.sku, hl.bucket;
    RETURN done;
END $$;
