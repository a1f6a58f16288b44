-- Fewer index entries per job (issue 28). `jobs_queue_state` (tenant, queue, state) took an
-- entry at every write of every job: the enqueue (available), the claim (running) and the
-- completion (completed), three of the eight or nine a job's life wrote. The states a job
-- passes through on the way every job goes now have other indexes:
-- - available: `jobs_fetch` (tenant, queue, priority, run_at, id), which the claim reads;
-- - running: `jobs_lease`, now led by (tenant, queue), so what runs in a queue (a limited
--   claim's counts, why a job waits, a listing) is found without the old index. The rescue,
--   which looks for expired leases in every queue, reads the whole index: one entry per
--   running job, as many as the workers' slots.
-- `jobs_queue_state` keeps the other states, in id order, for listings and bulk actions by
-- state (a queue's dead letters, its retries, its completed jobs). Queries that want running
-- jobs per queue say `lease_expires_at IS NOT NULL` (set exactly while a job runs, CHECKed below), so that the
-- planner can prove the index's predicate; the predicate stays on its own column for the
-- reason of V5 (a by-id statement must never imply it).
-- A running job has a lease expiry and no other job has one: enforced from now on (NOT VALID:
-- rows written before are not re-read; every write path already kept it).
ALTER TABLE jobs ADD CONSTRAINT jobs_lease_while_running
    CHECK ((state = 'running') = (lease_expires_at IS NOT NULL)) NOT VALID;
DROP INDEX jobs_queue_state;
CREATE INDEX jobs_queue_state ON jobs (tenant, queue, state, id)
    WHERE state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled');
DROP INDEX jobs_lease;
CREATE INDEX jobs_lease ON jobs (tenant, queue, lease_expires_at) WHERE lease_expires_at IS NOT NULL;

-- allot_claim_limited (V22) unchanged but for the running count, which now says
-- `lease_expires_at IS NOT NULL` so that it reads `jobs_lease`.
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
