-- As V37's, in the global lock order: the hold's row, then its stock rows (sku, bucket), then
-- its bookings' rows. V37 locked the bookings before the stock rows (which
-- allot_finish_holds locks), while a new hold locks stock rows first and then, a booking line
-- finding one of this hold's bookings past its expiry, that booking's row to expire it: the
-- two waited on each other until PostgreSQL broke the deadlock (40P01 reaching a caller of
-- allot.confirm_hold). The stock rows are locked here, once, before the bookings are looked at.
CREATE OR REPLACE FUNCTION allot_confirm_hold_at(p_tenant text, p_id text, p_at timestamptz, p_actor text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    h record;
    at timestamptz;
BEGIN
    SELECT status, kind, strategy, lines, expires_at INTO h FROM holds
     WHERE tenant = p_tenant AND id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no hold %', p_id USING ERRCODE = 'AL010', DETAIL = 'not_found';
    END IF;
    at := coalesce(p_at, clock_timestamp());
    IF h.status = 'held' AND h.kind = 'mixed' THEN
        PERFORM 1 FROM stock s
          JOIN (SELECT DISTINCT sku, bucket FROM hold_lines
                 WHERE tenant = p_tenant AND hold_id = p_id AND bucket >= 0) d
            ON s.tenant = p_tenant AND s.sku = d.sku AND s.bucket = d.bucket
         ORDER BY s.sku, s.bucket FOR UPDATE OF s;
        PERFORM 1 FROM bookings WHERE tenant = p_tenant AND hold_id = p_id ORDER BY id FOR UPDATE;
        IF EXISTS (SELECT 1 FROM bookings WHERE tenant = p_tenant AND hold_id = p_id AND status <> 'held') THEN
            PERFORM allot_hold_refusal(p_id, 'expired');
        END IF;
    END IF;
    IF h.status = 'held' AND h.expires_at > at THEN
        PERFORM allot_finish_holds(p_tenant, ARRAY[p_id], 'confirmed', at, p_actor, 'hold_confirmed');
        INSERT INTO allocations (tenant, id, status, strategy, lines, created_at)
        VALUES (p_tenant, p_id, 'allocated', h.strategy, h.lines, at);
        -- Fresh: nothing of it came back yet, so its answer is the hold's lines as they are.
        RETURN jsonb_build_object('id', p_id, 'status', 'allocated', 'strategy', h.strategy,
                                  'created_at', allot_answer_instant(at), 'lines', h.lines);
    ELSIF h.status <> 'confirmed' THEN
        PERFORM allot_hold_refusal(p_id, h.status);
    END IF;
    RETURN allot_allocation_answer(p_tenant, p_id);
END $$;
