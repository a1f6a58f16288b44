-- Fair claiming (issue 59): a queue with `fair_by = 'partition_key'` is claimed round-robin
-- across the groups of its runnable jobs (a group: a partition_key; the jobs without one
-- form the group ''), weighted by `fair_weights` ({"key": jobs per turn}, 1 when absent),
-- with a turn that outlives a claim: `fair_cursor` is the group visited last and
-- `fair_served` what its turn has taken (deficit round-robin, Shreedhar and Varghese,
-- SIGCOMM 1995). The rules are allot_core::job::fair's; a PUT of the settings writes a new
-- row state with no cursor (a new round).
ALTER TABLE queue_settings
    ADD COLUMN fair_by text CHECK (fair_by IN ('partition_key')),
    ADD COLUMN fair_weights jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN fair_cursor text,
    ADD COLUMN fair_served integer NOT NULL DEFAULT 0,
    DROP COLUMN gates_claims,
    ADD COLUMN gates_claims boolean GENERATED ALWAYS AS (
        paused OR max_running IS NOT NULL OR max_running_per_key IS NOT NULL
        OR rate_per_window IS NOT NULL OR fifo_per_key OR fair_by IS NOT NULL) STORED;

-- A queue's waiting jobs by group, in byte order of the group's name, then as a claim takes
-- them: the next group with runnable jobs after a name is one descent (the claim's walk over
-- groups), and a group's best jobs the next entries. Every waiting job has an entry (one
-- more index entry per enqueue, counted by `allot bench cost`'s `job` path); it leaves the
-- index when it is claimed, as it leaves `jobs_fetch`.
CREATE INDEX jobs_fair ON jobs (tenant, queue, (coalesce(partition_key, '') COLLATE "C"), priority, run_at, id)
    WHERE state IN ('available', 'scheduled', 'retryable');

-- The group with runnable jobs (waiting, due by p_now) of a queue that comes after p_after in
-- byte order; the first group when p_after is NULL. NULL when there is none. Two statements,
-- not one with `p_after IS NULL OR …`: a plan for both cases could not start the index scan at
-- p_after, and would read every entry of the groups before it (a heavy key's 100 000).
CREATE FUNCTION allot_fair_next(p_tenant text, p_queue text, p_now timestamptz, p_after text)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_next text;
BEGIN
    IF p_after IS NULL THEN
        SELECT coalesce(j.partition_key, '') COLLATE "C" INTO v_next FROM jobs j
         WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state IN ('available', 'scheduled', 'retryable')
           AND j.run_at <= p_now
         ORDER BY coalesce(j.partition_key, '') COLLATE "C" LIMIT 1;
    ELSE
        SELECT coalesce(j.partition_key, '') COLLATE "C" INTO v_next FROM jobs j
         WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state IN ('available', 'scheduled', 'retryable')
           AND j.run_at <= p_now AND coalesce(j.partition_key, '') COLLATE "C" > p_after COLLATE "C"
         ORDER BY coalesce(j.partition_key, '') COLLATE "C" LIMIT 1;
    END IF;
    RETURN v_next;
END;
$$;

-- A fair claim of at most p_take jobs (the queue-wide limits already applied by
-- allot_claim_limited, which locked the settings row `s` and counted what runs per key and
-- what started per key in the rate's window). Walks the groups as allot_core::job::fair says,
-- leases each group's best jobs its turn and its key's bounds allow as it visits it (the
-- candidates are not locked: the settings row orders the claims of this queue), moves the
-- cursor, records the starts of a rated queue and answers the leased jobs.
CREATE FUNCTION allot_claim_fair(p_tenant text, p_queue text, p_now timestamptz, p_take bigint,
                                 p_lease_ms bigint, p_worker text, s queue_settings,
                                 p_running jsonb, p_started jsonb)
RETURNS TABLE (id bigint, payload json, attempt integer, max_attempts integer, priority smallint,
               lease_token text, lease_expires_at timestamptz, run_at timestamptz, traceparent text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_ids bigint[] := '{}';
    v_got bigint[];
    v_group text;
    v_idle_from text;
    -- Jobs this claim took per group ({"key": n}), and of the group visited now.
    v_taken jsonb := '{}';
    v_mine bigint;
    v_served bigint := 0;
    v_room bigint;
    v_visits integer := 0;
    v_cursor text := s.fair_cursor;
    v_cursor_served bigint := s.fair_served;
    v_rate_per_key boolean := s.rate_per_window IS NOT NULL AND s.rate_per_key;
BEGIN
    -- The cursor's group goes on with its turn when the turn is not over and it has work.
    IF v_cursor IS NOT NULL AND v_cursor_served < coalesce((s.fair_weights ->> v_cursor)::bigint, 1)
       AND EXISTS (SELECT 1 FROM jobs j WHERE j.tenant = p_tenant AND j.queue = p_queue
                      AND j.state IN ('available', 'scheduled', 'retryable') AND j.run_at <= p_now
                      AND coalesce(j.partition_key, '') COLLATE "C" = v_cursor COLLATE "C") THEN
        v_group := v_cursor;
        v_served := v_cursor_served;
    ELSE
        -- The first group after the cursor, or the first of all past the last.
        v_group := coalesce(allot_fair_next(p_tenant, p_queue, p_now, v_cursor),
                            allot_fair_next(p_tenant, p_queue, p_now, NULL));
    END IF;
    -- 1000: allot_core::job::fair::MAX_FAIR_VISITS.
    WHILE v_group IS NOT NULL AND v_visits < 1000 AND cardinality(v_ids) < p_take LOOP
        v_visits := v_visits + 1;
        v_room := least(coalesce((s.fair_weights ->> v_group)::bigint, 1) - v_served, p_take - cardinality(v_ids));
        IF v_group <> '' THEN
            -- What runs (and started) of the key: before the claim, and what this claim's
            -- earlier visits of it took.
            v_mine := coalesce((v_taken ->> v_group)::bigint, 0);
            v_room := least(v_room,
                CASE WHEN s.fifo_per_key THEN 1 - coalesce((p_running ->> v_group)::bigint, 0) - v_mine
                     ELSE v_room END,
                coalesce(s.max_running_per_key - coalesce((p_running ->> v_group)::bigint, 0) - v_mine, v_room),
                CASE WHEN v_rate_per_key THEN s.rate_per_window - coalesce((p_started ->> v_group)::bigint, 0) - v_mine
                     ELSE v_room END);
        END IF;
        v_got := '{}';
        IF v_room > 0 THEN
            -- Leased at once, so the walk's next reads (a later visit of this group, the next
            -- group with runnable jobs) no longer see them.
            WITH picked AS (
                SELECT j.id FROM jobs j
                 WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state IN ('available', 'scheduled', 'retryable')
                   AND j.run_at <= p_now AND coalesce(j.partition_key, '') COLLATE "C" = v_group COLLATE "C"
                   AND (NOT s.fifo_per_key OR j.partition_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM jobs e
                         WHERE e.tenant = p_tenant AND e.queue = p_queue AND e.partition_key = j.partition_key
                           AND e.id < j.id AND e.state IN ('available', 'scheduled', 'retryable', 'running')))
                 ORDER BY j.priority, j.run_at, j.id LIMIT v_room),
            leased AS (
                UPDATE jobs j SET state = 'running', attempt = j.attempt + 1, lease_token = gen_random_uuid()::text,
                       lease_expires_at = p_now + p_lease_ms * interval '1 millisecond', worker = p_worker,
                       attempted_at = p_now
                  FROM picked WHERE j.tenant = p_tenant AND j.id = picked.id
                   AND j.state IN ('available', 'scheduled', 'retryable')
                RETURNING j.id)
            SELECT coalesce(array_agg(l.id), '{}') INTO v_got FROM leased l;
            v_ids := v_ids || v_got;
            v_taken := jsonb_set(v_taken, ARRAY[v_group],
                                 to_jsonb(coalesce((v_taken ->> v_group)::bigint, 0) + cardinality(v_got)));
        END IF;
        v_cursor := v_group;
        v_cursor_served := v_served + cardinality(v_got);
        v_served := 0;
        -- A visit that took nothing starts (or goes on with) an idle stretch; one that took
        -- a job ends it. A group's runnable jobs only leave by being taken, so a walk back at
        -- the group its idle stretch began with has seen every group take nothing: stop.
        IF cardinality(v_got) > 0 THEN
            v_idle_from := NULL;
        ELSIF v_idle_from IS NULL THEN
            v_idle_from := v_group;
        END IF;
        v_group := coalesce(allot_fair_next(p_tenant, p_queue, p_now, v_group),
                            allot_fair_next(p_tenant, p_queue, p_now, NULL));
        IF v_group IS NOT DISTINCT FROM v_idle_from THEN
            EXIT;
        END IF;
    END LOOP;
    -- Written only when it moved (a claim that found nothing writes nothing).
    IF v_cursor IS DISTINCT FROM s.fair_cursor OR v_cursor_served <> s.fair_served THEN
        UPDATE queue_settings q SET fair_cursor = v_cursor, fair_served = v_cursor_served
         WHERE q.tenant = p_tenant AND q.queue = p_queue;
    END IF;
    RETURN QUERY
    WITH claimed AS (
        SELECT j.id, j.payload, j.attempt, j.max_attempts, j.priority, j.lease_token, j.lease_expires_at, j.run_at,
               j.partition_key, j.traceparent
          FROM jobs j WHERE j.tenant = p_tenant AND j.id = ANY (v_ids)),
    logged AS (
        INSERT INTO job_starts (tenant, queue, partition_key, started_at)
        SELECT p_tenant, p_queue, c.partition_key, p_now FROM claimed c WHERE s.rate_per_window IS NOT NULL)
    SELECT c.id, c.payload, c.attempt, c.max_attempts, c.priority, c.lease_token, c.lease_expires_at, c.run_at,
           c.traceparent
      FROM claimed c;
END;
$$;

-- allot_claim_limited (V25) unchanged but for a fair queue, which allot_claim_fair claims once
-- the queue-wide limits are counted.
CREATE OR REPLACE FUNCTION allot_claim_limited(p_tenant text, p_queue text, p_now timestamptz, p_max bigint,
                                    p_lease_ms bigint, p_worker text)
RETURNS TABLE (id bigint, payload json, attempt integer, max_attempts integer, priority smallint,
               lease_token text, lease_expires_at timestamptz, run_at timestamptz, traceparent text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    s queue_settings%ROWTYPE;
    v_running bigint;
    v_started bigint := 0;
    v_take bigint;
    v_window interval;
    v_rate_per_key boolean;
    -- Per key: jobs running, starts in the window ({"key": n}); a jsonb object is searched
    -- by key in O(log n), where a join would make the planner sort the whole scan.
    v_running_by_key jsonb;
    v_started_by_key jsonb := '{}';
BEGIN
    SELECT * INTO s FROM queue_settings q WHERE q.tenant = p_tenant AND q.queue = p_queue FOR UPDATE;
    IF NOT FOUND OR s.paused THEN
        RETURN;
    END IF;
    v_window := coalesce(s.rate_window_ms, 0) * interval '1 millisecond';
    v_rate_per_key := s.rate_per_window IS NOT NULL AND s.rate_per_key;
    SELECT coalesce(sum(c.n), 0), coalesce(jsonb_object_agg(c.key, c.n) FILTER (WHERE c.key IS NOT NULL), '{}')
      INTO v_running, v_running_by_key
      FROM (SELECT j.partition_key AS key, count(*) AS n FROM jobs j
             WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state = 'running'
               AND j.lease_expires_at IS NOT NULL GROUP BY j.partition_key) c;
    IF s.rate_per_window IS NOT NULL THEN
        DELETE FROM job_starts st WHERE st.tenant = p_tenant AND st.queue = p_queue
           AND st.started_at <= p_now - v_window - interval '1 minute';
        SELECT coalesce(sum(c.n), 0), coalesce(jsonb_object_agg(c.key, c.n) FILTER (WHERE c.key IS NOT NULL), '{}')
          INTO v_started, v_started_by_key
          FROM (SELECT st.partition_key AS key, count(*) AS n FROM job_starts st
                 WHERE st.tenant = p_tenant AND st.queue = p_queue AND st.started_at > p_now - v_window
                 GROUP BY st.partition_key) c;
    END IF;
    v_take := least(p_max, coalesce(s.max_running - v_running, p_max),
                    CASE WHEN s.rate_per_window IS NOT NULL AND NOT v_rate_per_key
                         THEN s.rate_per_window - v_started ELSE p_max END);
    IF v_take <= 0 THEN
        RETURN;
    END IF;
    IF s.fair_by IS NOT NULL THEN
        RETURN QUERY SELECT * FROM allot_claim_fair(p_tenant, p_queue, p_now, v_take, p_lease_ms, p_worker, s,
                                                    v_running_by_key, v_started_by_key);
        RETURN;
    END IF;
    RETURN QUERY
    WITH
    -- Room per key: FIFO allows one, a per-key limit what it leaves, a per-key rate what
    -- its window leaves. Keys without room are filtered out of the scan, so a key at its
    -- limit never fills the window the scan looks at. The candidates are not locked: the
    -- settings row already orders the claims of this queue, and the UPDATE re-checks each
    -- chosen job's state (READ COMMITTED re-reads a row another transaction changed, so a
    -- job cancelled meanwhile is passed over), which spares a row lock on every candidate.
    candidates AS MATERIALIZED (
        SELECT j.id, j.partition_key AS key, j.priority, j.run_at,
               least(CASE WHEN s.fifo_per_key THEN 1 ELSE p_max END,
                     coalesce(s.max_running_per_key - coalesce((v_running_by_key ->> j.partition_key)::bigint, 0), p_max),
                     CASE WHEN v_rate_per_key
                          THEN s.rate_per_window - coalesce((v_started_by_key ->> j.partition_key)::bigint, 0)
                          ELSE p_max END) AS room
          FROM jobs j
         WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state IN ('available', 'scheduled', 'retryable')
           AND j.run_at <= p_now
           AND (j.partition_key IS NULL OR (
                (NOT s.fifo_per_key OR (
                    NOT v_running_by_key ? j.partition_key
                    AND NOT EXISTS (SELECT 1 FROM jobs e
                                     WHERE e.tenant = p_tenant AND e.queue = p_queue AND e.partition_key = j.partition_key
                                       AND e.id < j.id AND e.state IN ('available', 'scheduled', 'retryable', 'running'))))
                AND (s.max_running_per_key IS NULL
                     OR coalesce((v_running_by_key ->> j.partition_key)::bigint, 0) < s.max_running_per_key)
                AND (NOT v_rate_per_key
                     OR coalesce((v_started_by_key ->> j.partition_key)::bigint, 0) < s.rate_per_window)))
         ORDER BY j.priority, j.run_at, j.id
         LIMIT v_take * 2 + 32),
    ranked AS (
        SELECT c.id, c.priority, c.run_at, c.key IS NULL OR row_number() OVER (
                   PARTITION BY c.key ORDER BY c.priority, c.run_at, c.id) <= c.room AS fits
          FROM candidates c),
    chosen AS MATERIALIZED (
        SELECT r.id FROM ranked r WHERE r.fits ORDER BY r.priority, r.run_at, r.id LIMIT v_take),
    claimed AS (
        UPDATE jobs j SET state = 'running', attempt = j.attempt + 1, lease_token = gen_random_uuid()::text,
               lease_expires_at = p_now + p_lease_ms * interval '1 millisecond', worker = p_worker, attempted_at = p_now
          FROM chosen WHERE j.tenant = p_tenant AND j.id = chosen.id
           AND j.state IN ('available', 'scheduled', 'retryable')
        RETURNING j.id, j.payload, j.attempt, j.max_attempts, j.priority, j.lease_token, j.lease_expires_at, j.run_at,
                  j.partition_key, j.traceparent),
    logged AS (
        INSERT INTO job_starts (tenant, queue, partition_key, started_at)
        SELECT p_tenant, p_queue, c.partition_key, p_now FROM claimed c WHERE s.rate_per_window IS NOT NULL)
    SELECT c.id, c.payload, c.attempt, c.max_attempts, c.priority, c.lease_token, c.lease_expires_at, c.run_at,
           c.traceparent
      FROM claimed c;
END;
$$;
