-- Booking lines in holds (issue 57): `POST /v1/holds` takes `{"booking":{…}}` lines beside
-- stock and unit lines. Each becomes a `held` booking whose `hold_id` names the hold, with the
-- hold's expiry; it is confirmed, released or expired with the hold (allot_finish_holds
-- below), extended with it, and refused by the booking endpoints (`held_by_hold`).
ALTER TABLE bookings ADD COLUMN hold_id text;
CREATE INDEX bookings_of_holds ON bookings (tenant, hold_id) WHERE hold_id IS NOT NULL;

-- As V34's, and the holds' bookings too: each `held` one takes the hold's new status (the
-- names are the same: confirmed, released, expired), a confirmed one loses its expiry. The
-- booking triggers (V16, V32, V33) write their events.
CREATE OR REPLACE FUNCTION allot_finish_holds(p_tenant text, p_ids text[], p_to text, p_at timestamptz,
                                              p_actor text, p_kind text)
RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    done text[];
    confirm boolean := p_to = 'confirmed';
BEGIN
    WITH finished AS (
        UPDATE holds SET status = p_to, finished_at = p_at
         WHERE tenant = p_tenant AND id = ANY(p_ids) AND status = 'held' RETURNING id, kind)
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
    UPDATE bookings SET status = p_to, status_at = p_at,
           expires_at = CASE WHEN confirm THEN NULL ELSE expires_at END
     WHERE tenant = p_tenant AND hold_id = ANY(done) AND status = 'held';
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT hl.tenant, hl.sku, CASE WHEN confirm THEN -hl.quantity ELSE 0 END, -hl.quantity, p_kind,
           hl.hold_id, p_actor, st.location, p_at
      FROM hold_lines hl
      LEFT JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
     WHERE hl.tenant = p_tenant AND hl.hold_id = ANY(done)
     ORDER BY hl.hold_id, hl.sku, hl.bucket;
    RETURN done;
END $$;

-- The bookings of hold `p_id` as the API answers them (allot_core Booking), in the order of
-- its lines (resource, start, end); NULL for a hold without booking lines.
CREATE FUNCTION allot_hold_bookings_answer(p_tenant text, p_id text) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
               'id', b.id, 'resource', b.resource, 'start', allot_answer_instant(lower(b.during)),
               'end', allot_answer_instant(upper(b.during)), 'holder', b.holder, 'quantity', b.quantity,
               'metadata', b.metadata, 'status', b.status, 'strategy', b.strategy,
               'expires_at', allot_answer_instant(b.expires_at), 'created_at', allot_answer_instant(b.created_at),
               'hold_id', b.hold_id))
           ORDER BY b.resource, lower(b.during), upper(b.during))
      FROM bookings b WHERE b.tenant = p_tenant AND b.hold_id = p_id
$$;

-- As V35's, and a hold whose booking lines no longer all stand `held` (a booking in their way
-- or the bookings' sweeper expired them, by a later clock than this confirm's) is refused as
-- expired: never a confirm of its stock without its bookings. The bookings' rows are locked
-- (after the hold's row) before they are looked at, so an expiry of one that comes after
-- waits for this confirm and then finds it confirmed.
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

-- As V35's, its answer listing the hold's bookings too (a hold of several kinds lists
-- `units`, empty once it no longer holds any, as before).
CREATE OR REPLACE FUNCTION allot_release_hold_at(p_tenant text, p_id text, p_at timestamptz, p_actor text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    h record;
    at timestamptz;
BEGIN
    SELECT status, expires_at INTO h FROM holds WHERE tenant = p_tenant AND id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no hold %', p_id USING ERRCODE = 'AL010', DETAIL = 'not_found';
    END IF;
    at := coalesce(p_at, clock_timestamp());
    IF h.status = 'confirmed' THEN
        PERFORM allot_hold_refusal(p_id, h.status);
    ELSIF h.status = 'held' AND h.expires_at <= at THEN
        PERFORM allot_finish_holds(p_tenant, ARRAY[p_id], 'expired', at, NULL, 'hold_expired');
    ELSIF h.status = 'held' THEN
        PERFORM allot_finish_holds(p_tenant, ARRAY[p_id], 'released', at, p_actor, 'hold_released');
    END IF;
    RETURN (SELECT jsonb_build_object('id', x.id, 'status', x.status, 'kind', x.kind, 'lines', x.lines,
                                      'strategy', x.strategy, 'expires_at', allot_answer_instant(x.expires_at),
                                      'created_at', allot_answer_instant(x.created_at))
                   || CASE WHEN x.kind IN ('units', 'mixed') THEN '{"units": []}'::jsonb ELSE '{}'::jsonb END
                   || CASE WHEN bk.answer IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('bookings', bk.answer) END
              FROM holds x, LATERAL (SELECT allot_hold_bookings_answer(p_tenant, p_id) AS answer) bk
             WHERE x.tenant = p_tenant AND x.id = p_id);
END $$;
