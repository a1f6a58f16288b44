-- Confirming and releasing a hold as SQL functions, so that the API and any client's own
-- transaction run the very same code (issue 57): the API calls `allot_confirm_hold_at` and
-- `allot_release_hold_at` with the store's clock; `allot.confirm_hold` / `allot.release_hold`
-- (below) call them with the database's clock, read after the hold's row is locked. A
-- confirm inside the caller's transaction holds the hold's row, and the stock rows it
-- finishes, until that transaction ends: commit, and the hold is confirmed with its
-- allocation, ledger entries and events (the ledger-mark and hold triggers are the API's);
-- roll back, and it is still held, to be confirmed, released or to expire.
--
-- Refusals raise SQLSTATEs of allot's own class `AL`, with the API's error code in DETAIL:
--   AL010  not_found        no hold of that id in that tenant
--   AL011  hold_expired     the hold expired (before the confirm ran)
--   AL012  hold_released    the hold was released
--   AL013  hold_confirmed   the hold was confirmed (a release of it)
-- The public functions' own argument checks raise 22023 (invalid_parameter_value), as
-- `allot.enqueue`'s do.

-- An instant as the API's answers write it (UTC, `Z`, no fraction when there is none, else
-- milliseconds when they suffice, else microseconds: allot_core support::instant).
CREATE FUNCTION allot_answer_instant(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || CASE WHEN extract(microseconds FROM t)::int8 % 1000000 = 0 THEN ''
                WHEN extract(microseconds FROM t)::int8 % 1000 = 0 THEN to_char(t AT TIME ZONE 'UTC', '.MS')
                ELSE to_char(t AT TIME ZONE 'UTC', '.US') END
        || 'Z'
$$;

-- Raise the refusal of a hold found in stored status `p_status` (not `held`, or `held` but
-- past its expiry at the time of the check).
CREATE FUNCTION allot_hold_refusal(p_id text, p_status text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    CASE p_status
    WHEN 'released' THEN
        RAISE EXCEPTION 'hold % was released', p_id USING ERRCODE = 'AL012', DETAIL = 'hold_released';
    WHEN 'confirmed' THEN
        RAISE EXCEPTION 'hold % was confirmed', p_id USING ERRCODE = 'AL013', DETAIL = 'hold_confirmed';
    ELSE
        RAISE EXCEPTION 'hold % expired', p_id USING ERRCODE = 'AL011', DETAIL = 'hold_expired';
    END CASE;
END $$;

-- The allocation `p_id` of `p_tenant` as the API answers it: each line's `returned` is the
-- sum of the allocation's returns of its SKU (allot_core returns::derive_returned).
CREATE FUNCTION allot_allocation_answer(p_tenant text, p_id text) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', a.id, 'status', a.status, 'strategy', a.strategy,
               'created_at', allot_answer_instant(a.created_at),
               'lines', (SELECT coalesce(jsonb_agg(CASE WHEN r.q > 0 THEN l.line || jsonb_build_object('returned', r.q)
                                                        ELSE l.line - 'returned' END ORDER BY l.n), '[]'::jsonb)
                           FROM jsonb_array_elements(a.lines) WITH ORDINALITY AS l(line, n)
                           LEFT JOIN LATERAL (SELECT sum(rt.quantity)::int8 AS q FROM returns rt
                                               WHERE rt.tenant = a.tenant AND rt.allocation_id = a.id
                                                 AND rt.sku = l.line->>'sku') r ON true))
      FROM allocations a WHERE a.tenant = p_tenant AND a.id = p_id
$$;

-- Confirm the hold `p_id` of `p_tenant` whole, by `p_actor`, at `p_at` (NULL: the database's
-- clock, read once the hold's row is locked). Locks the hold's row first (the lock order of
-- allot_postgres holds/mod.rs), finishes it with allot_finish_holds and records its
-- allocation. A hold already confirmed answers its allocation again (confirm is
-- idempotent); any other refusal raises (see above). Returns the allocation's answer.
CREATE FUNCTION allot_confirm_hold_at(p_tenant text, p_id text, p_at timestamptz, p_actor text)
RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    h record;
    at timestamptz;
BEGIN
    SELECT status, strategy, lines, expires_at INTO h FROM holds
     WHERE tenant = p_tenant AND id = p_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no hold %', p_id USING ERRCODE = 'AL010', DETAIL = 'not_found';
    END IF;
    at := coalesce(p_at, clock_timestamp());
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

-- Release the hold `p_id` of `p_tenant`, by `p_actor`, at `p_at` (NULL: the database's clock,
-- read once the hold's row is locked). A hold past its expiry but not yet swept finishes as
-- what it is, expired; one already released or expired stays as it is; a confirmed one is
-- refused (AL013). Returns the hold's answer.
CREATE FUNCTION allot_release_hold_at(p_tenant text, p_id text, p_at timestamptz, p_actor text)
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
              FROM holds x WHERE x.tenant = p_tenant AND x.id = p_id);
END $$;

-- The public functions' argument checks, as the API's (22023).
CREATE FUNCTION allot_hold_arguments(fn text, p_id text, p_tenant text, p_actor text)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_id IS NULL OR length(p_id) NOT BETWEEN 1 AND 128 THEN
        RAISE EXCEPTION 'allot.%: hold_id must be 1..=128 chars', fn USING ERRCODE = '22023';
    END IF;
    IF p_tenant IS NULL OR p_tenant !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'allot.%: tenant must be 1..=128 chars of A-Z a-z 0-9 . _ : -', fn USING ERRCODE = '22023';
    END IF;
    IF length(p_actor) NOT BETWEEN 1 AND 256 THEN
        RAISE EXCEPTION 'allot.%: actor must be 1..=256 chars', fn USING ERRCODE = '22023';
    END IF;
END $$;

-- The public functions, in the schema of `allot.enqueue` (V18): `allot` when allot's tables
-- are in `public`, else `<schema>_allot`, reaching the tables (and the functions above) by
-- the search_path they were created with.
DO $do$
DECLARE
    target text := CASE current_schema() WHEN 'public' THEN 'allot' ELSE current_schema() || '_allot' END;
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', target);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %I.confirm_hold(hold_id text, tenant text DEFAULT 'default', actor text DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
BEGIN
    PERFORM allot_hold_arguments('confirm_hold', hold_id, tenant, actor);
    RETURN allot_confirm_hold_at(tenant, hold_id, NULL, actor);
END;
$body$$f$, target);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %I.release_hold(hold_id text, tenant text DEFAULT 'default', actor text DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
BEGIN
    PERFORM allot_hold_arguments('release_hold', hold_id, tenant, actor);
    RETURN allot_release_hold_at(tenant, hold_id, NULL, actor);
END;
$body$$f$, target);
END;
$do$;
