-- The queue people pay for (issue 27): per-key limits and FIFO, pause, rates, snooze, output,
-- tags and metadata, and a claim that obeys a queue's settings inside one call.
ALTER TABLE jobs
    ADD COLUMN partition_key text,
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
    ADD COLUMN metadata json NOT NULL DEFAULT '{}',
    ADD COLUMN output json;

-- A key's unfinished jobs by id: FIFO predecessors and what runs per key.
CREATE INDEX jobs_partition ON jobs (tenant, queue, partition_key, id)
    WHERE partition_key IS NOT NULL AND state IN ('available', 'scheduled', 'retryable', 'running');
-- Listing by tag (only jobs that have tags pay for the index).
CREATE INDEX jobs_tags ON jobs USING gin (tags) WHERE tags <> '{}';

-- A queue's settings; a queue without a row has none (not paused, no limit).
CREATE TABLE queue_settings (
    tenant              text NOT NULL,
    queue               text NOT NULL,
    paused              boolean NOT NULL DEFAULT false,
    max_running         integer CHECK (max_running >= 1),
    max_running_per_key integer CHECK (max_running_per_key >= 1),
    rate_per_window     integer CHECK (rate_per_window >= 1),
    rate_window_ms      bigint CHECK (rate_window_ms >= 1),
    rate_per_key        boolean NOT NULL DEFAULT false,
    fifo_per_key        boolean NOT NULL DEFAULT false,
    CHECK ((rate_per_window IS NULL) = (rate_window_ms IS NULL)),
    PRIMARY KEY (tenant, queue)
);

-- Starts of jobs in rate-limited queues: the sliding window counts them (kept a minute past
-- the window, so a claim whose clock read came a little earlier still sees every start).
CREATE TABLE job_starts (
    tenant        text NOT NULL,
    queue         text NOT NULL,
    partition_key text,
    started_at    timestamptz NOT NULL
);
CREATE INDEX job_starts_window ON job_starts (tenant, queue, started_at);

-- The claim of a queue with settings. Paused: nothing. Limited (a limit, a rate or FIFO):
-- the queue's settings row is locked FOR UPDATE first, so limited claims of one queue run
-- one after another across every instance, and each following statement reads what runs
-- under a fresh snapshot (READ COMMITTED takes one per statement inside PL/pgSQL; PostgreSQL
-- docs 13.2.1), which holds every earlier claim's commit. One call, one round trip per claim.
CREATE FUNCTION allot_claim_limited(p_tenant text, p_queue text, p_now timestamptz, p_max bigint,
                                    p_lease_ms bigint, p_worker text)
RETURNS TABLE (id bigint, payload json, attempt integer, max_attempts integer, priority smallint,
               lease_token text, lease_expires_at timestamptz, run_at timestamptz)
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
             WHERE j.tenant = p_tenant AND j.queue = p_queue AND j.state = 'running' GROUP BY j.partition_key) c;
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
                  j.partition_key),
    logged AS (
        INSERT INTO job_starts (tenant, queue, partition_key, started_at)
        SELECT p_tenant, p_queue, c.partition_key, p_now FROM claimed c WHERE s.rate_per_window IS NOT NULL)
    SELECT c.id, c.payload, c.attempt, c.max_attempts, c.priority, c.lease_token, c.lease_expires_at, c.run_at
      FROM claimed c;
END;
$$;

-- Transactional enqueue: any client of this database enqueues inside its own transaction,
-- so the job exists if and only if that transaction commits (the reason a queue lives in
-- PostgreSQL: River's InsertTx, graphile-worker's add_job). Installed in a schema of its own,
-- `allot` when allot's tables are in `public`, else `<schema>_allot`; it reaches the tables
-- through the search_path it was created with. Waiting claimers are woken by a NOTIFY, which
-- PostgreSQL delivers only at commit (docs, NOTIFY). Times come from the caller's transaction
-- (`now()`), the one place allot's rows take the database's clock. Returns the job's id, or
-- the unfinished job's that already holds `unique_key`. It checks what the API's default
-- limits check (names, attempts, keys, tags, sizes) and refuses with 22023.
DO $do$
DECLARE
    target text := CASE current_schema() WHEN 'public' THEN 'allot' ELSE current_schema() || '_allot' END;
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', target);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %I.enqueue(
    queue text, payload jsonb DEFAULT '{}', priority integer DEFAULT 1, run_at timestamptz DEFAULT NULL,
    max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL, partition_key text DEFAULT NULL,
    tags text[] DEFAULT '{}', metadata jsonb DEFAULT '{}', tenant text DEFAULT 'default')
RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
#variable_conflict use_column
DECLARE
    new_id bigint;
    at timestamptz := coalesce(enqueue.run_at, now());
BEGIN
    IF enqueue.queue IS NULL OR enqueue.queue !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'allot.enqueue: queue must be 1..=128 chars of A-Z a-z 0-9 . _ : -'
            USING ERRCODE = '22023';
    END IF;
    IF enqueue.tenant IS NULL OR enqueue.tenant !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'allot.enqueue: tenant must be 1..=128 chars of A-Z a-z 0-9 . _ : -'
            USING ERRCODE = '22023';
    END IF;
    IF enqueue.metadata IS NULL OR jsonb_typeof(enqueue.metadata) <> 'object' THEN
        RAISE EXCEPTION 'allot.enqueue: metadata must be a JSON object' USING ERRCODE = '22023';
    END IF;
    IF enqueue.max_attempts IS NULL OR enqueue.max_attempts NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'allot.enqueue: max_attempts must be 1..=100' USING ERRCODE = '22023';
    END IF;
    IF length(enqueue.unique_key) NOT BETWEEN 1 AND 256 OR length(enqueue.partition_key) NOT BETWEEN 1 AND 256 THEN
        RAISE EXCEPTION 'allot.enqueue: unique_key and partition_key must be 1..=256 chars' USING ERRCODE = '22023';
    END IF;
    IF cardinality(enqueue.tags) > 16 OR EXISTS (SELECT 1 FROM unnest(enqueue.tags) t WHERE length(t) NOT BETWEEN 1 AND 256)
       OR array_position(enqueue.tags, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'allot.enqueue: at most 16 tags of 1..=256 chars' USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue.payload::text) > 65536 OR octet_length(enqueue.metadata::text) > 16384 THEN
        RAISE EXCEPTION 'allot.enqueue: payload at most 64 KiB, metadata at most 16 KiB' USING ERRCODE = '22023';
    END IF;
    -- A unique key whose holder finishes between the insert and the read is inserted again.
    FOR try_n IN 1..3 LOOP
        INSERT INTO jobs AS j (tenant, queue, state, priority, payload, run_at, max_attempts, unique_key,
                               partition_key, tags, metadata, created_at)
        VALUES (enqueue.tenant, enqueue.queue, CASE WHEN at > now() THEN 'scheduled' ELSE 'available' END,
                enqueue.priority, coalesce(enqueue.payload, 'null')::json, at, enqueue.max_attempts,
                enqueue.unique_key, enqueue.partition_key, coalesce(enqueue.tags, '{}'), enqueue.metadata::json, now())
        ON CONFLICT (tenant, queue, unique_key)
           WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled')
        DO NOTHING RETURNING j.id INTO new_id;
        IF new_id IS NOT NULL THEN
            PERFORM pg_notify('allot_jobs', enqueue.tenant || '/' || enqueue.queue);
            RETURN new_id;
        END IF;
        SELECT j.id INTO new_id FROM jobs j
         WHERE j.tenant = enqueue.tenant AND j.queue = enqueue.queue AND j.unique_key = enqueue.unique_key
           AND j.state NOT IN ('completed', 'discarded', 'cancelled');
        IF new_id IS NOT NULL THEN
            RETURN new_id;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'allot.enqueue: the unique_key''s job kept changing; run the transaction again'
        USING ERRCODE = '40001';
END;
$body$$f$, target);
END;
$do$;
