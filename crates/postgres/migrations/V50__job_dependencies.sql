-- Job dependencies (issue 59; the rules: allot_core::job::depend). A job enqueued with
-- `depends_on` waits in state `pending` until every dependency completed. Each job counts the
-- dependencies it still waits for (`dependencies_pending`); an edge table says who waits for
-- whom. A dependency that is waited for carries `has_dependents`, set (under the row's lock)
-- by the enqueue that names it, so a job nobody waits for pays nothing when it finishes: the
-- trigger below fires only for rows that have dependents.
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('pending', 'available', 'scheduled', 'running', 'retryable', 'completed', 'discarded',
                     'cancelled')) NOT VALID;
ALTER TABLE jobs VALIDATE CONSTRAINT jobs_state_check;
-- The new columns are NULL on a job without dependencies or dependents (NULL: 0, false,
-- `discard`): a NULL costs a job no bytes, so the queue's hot path writes no more WAL.
ALTER TABLE jobs ADD COLUMN dependencies_pending int,
    ADD COLUMN dependency_depth int,
    ADD COLUMN has_dependents boolean,
    ADD COLUMN on_failed_dependency text,
    -- What discarded a job because of its dependencies: `job 7 discarded`, the job whose end
    -- started the cascade (allot_core::job::depend::failure); passed on down the chain.
    ADD COLUMN dependency_failure text;
ALTER TABLE jobs ADD CONSTRAINT jobs_on_failed_dependency CHECK (on_failed_dependency IN ('discard', 'run')) NOT VALID;
ALTER TABLE jobs VALIDATE CONSTRAINT jobs_on_failed_dependency;

-- Who waits for whom, until the dependency finishes (then the edge is settled and deleted).
-- A job's own edges go with it (pruning, deletion), by a trigger that
-- fires only for jobs with dependencies (their depth is at least 1): a foreign key with
-- ON DELETE CASCADE would look up the edges of every job deleted.
CREATE TABLE job_dependencies (
    tenant     text NOT NULL,
    job_id     bigint NOT NULL,
    depends_on bigint NOT NULL,
    PRIMARY KEY (tenant, depends_on, job_id)
);
CREATE INDEX job_dependencies_job ON job_dependencies (tenant, job_id);
-- Batches with a callback (allot_core::job::batch): the callback is a job that depends on
-- every member with `on_failed_dependency = 'run'`; its batch's row counts how the members
-- ended, added to as each one is settled, and goes with the callback job.
CREATE TABLE batches (
    tenant     text NOT NULL,
    id         text NOT NULL,
    job_id     bigint NOT NULL,
    jobs       int NOT NULL,
    completed  int NOT NULL DEFAULT 0,
    discarded  int NOT NULL DEFAULT 0,
    cancelled  int NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE UNIQUE INDEX batches_job ON batches (tenant, job_id);
CREATE FUNCTION allot_drop_job_edges() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_dependencies WHERE tenant = OLD.tenant AND job_id = OLD.id;
    DELETE FROM batches WHERE tenant = OLD.tenant AND job_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_drop_edges AFTER DELETE ON jobs FOR EACH ROW WHEN (OLD.dependency_depth > 0)
    EXECUTE FUNCTION allot_drop_job_edges();
-- Listings and bulk actions of pending jobs (off `jobs_queue_state`, whose predicate names
-- the states it had).
CREATE INDEX jobs_pending ON jobs (tenant, queue, id) WHERE state = 'pending';

-- Settle the dependents of a job that just finished (completed, discarded, cancelled), in the
-- transaction that finished it, at the instant it finished (`finalized_at`, the store's
-- clock): each pending dependent counts one dependency less and becomes runnable at zero, or
-- is discarded when the dependency failed and it does not say `run`
-- (allot_core::job::depend::settle). Each edge is settled once: it is deleted as it is
-- settled, so a dependency run again by hand and finished again counts for nothing more.
-- A discarded dependent settles its own dependents in the
-- next round of the loop, not by recursion (the loop's updates fire this trigger again,
-- which returns at once while the transaction-local `allot.settling` is on: a finish inside a
-- caller's own trigger still settles), so a long chain costs rounds, not stack. Each round
-- locks the pending dependents in id order before it changes them (two finishes that share
-- dependents cannot deadlock on them). The jobs are reached by id arrays (`= ANY`, an index
-- scan of the key), and `pending` is said as the complement of the other states (the table's
-- CHECK makes them one): `state = 'pending'` proves the predicate of `jobs_pending`, which the
-- planner then preferred, reading every pending job of the tenant at each settle (a chain
-- drain at 216 jobs/s behind 20 000 jobs). Concurrent finishes of two dependencies of one job
-- serialize on that job's row (the lock and re-check under READ COMMITTED), so the count
-- reaches zero exactly once. Waiting claimers of a queue where a job was released are woken
-- (NOTIFY, delivered at commit).
CREATE FUNCTION allot_settle_dependents() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    frontier bigint[] := ARRAY[NEW.id];
    released text[];
    at timestamptz := coalesce(NEW.finalized_at, NEW.run_at);
    origin text := coalesce(NEW.dependency_failure, 'job ' || NEW.id || ' ' || NEW.state);
BEGIN
    IF current_setting('allot.settling', true) = 'on' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('allot.settling', 'on', true);
    WHILE cardinality(frontier) > 0 LOOP
        WITH gone AS (
            DELETE FROM job_dependencies e WHERE e.tenant = NEW.tenant AND e.depends_on = ANY(frontier)
            RETURNING e.job_id, e.depends_on),
        settled AS (
            SELECT g.job_id, count(*)::int AS n, bool_or(d.state <> 'completed') AS failed,
                   count(*) FILTER (WHERE d.state = 'completed')::int AS completed,
                   count(*) FILTER (WHERE d.state = 'discarded')::int AS discarded,
                   count(*) FILTER (WHERE d.state = 'cancelled')::int AS cancelled
              FROM gone g JOIN jobs d ON d.tenant = NEW.tenant AND d.id = g.depends_on AND d.id = ANY(frontier)
             GROUP BY g.job_id),
        counted AS (
            UPDATE batches b SET completed = b.completed + s.completed, discarded = b.discarded + s.discarded,
                   cancelled = b.cancelled + s.cancelled
              FROM settled s WHERE b.tenant = NEW.tenant AND b.job_id = s.job_id
            RETURNING b.job_id, jsonb_build_object('id', b.id, 'jobs', b.jobs, 'completed', b.completed,
                                                   'discarded', b.discarded, 'cancelled', b.cancelled) AS counts),
        locked AS MATERIALIZED (
            SELECT j.id FROM jobs j
             WHERE j.tenant = NEW.tenant AND j.id = ANY(ARRAY(SELECT job_id FROM settled))
               AND j.state NOT IN ('available', 'scheduled', 'running', 'retryable', 'completed', 'discarded', 'cancelled')
             ORDER BY j.id FOR UPDATE),
        moved AS (
            UPDATE jobs j SET
                dependencies_pending = j.dependencies_pending - s.n,
                state = CASE WHEN s.failed AND j.on_failed_dependency IS DISTINCT FROM 'run' THEN 'discarded'
                             WHEN j.dependencies_pending > s.n THEN 'pending'
                             WHEN j.run_at > at THEN 'scheduled' ELSE 'available' END,
                finalized_at = CASE WHEN s.failed AND j.on_failed_dependency IS DISTINCT FROM 'run' THEN at END,
                dependency_failure = CASE WHEN s.failed AND j.on_failed_dependency IS DISTINCT FROM 'run' THEN origin END,
                payload = CASE WHEN c.job_id IS NOT NULL AND j.dependencies_pending = s.n
                               AND NOT (s.failed AND j.on_failed_dependency IS DISTINCT FROM 'run')
                               THEN (j.payload::jsonb || jsonb_build_object('batch', c.counts))::json
                               ELSE j.payload END
              FROM settled s LEFT JOIN counted c ON c.job_id = s.job_id
             WHERE j.tenant = NEW.tenant AND j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.id = s.job_id
               AND j.state NOT IN ('available', 'scheduled', 'running', 'retryable', 'completed', 'discarded', 'cancelled')
            RETURNING j.id, j.queue, j.state, j.has_dependents),
        announced AS (
            INSERT INTO events (tenant, type, object, data, at)
            SELECT NEW.tenant, 'batch.completed', c.counts ->> 'id',
                   (c.counts || jsonb_build_object('callback_id', m.id, 'queue', m.queue))::json, at
              FROM moved m JOIN counted c ON c.job_id = m.id
             WHERE m.state IN ('available', 'scheduled')
               AND EXISTS (SELECT 1 FROM queue_settings q WHERE q.tenant = NEW.tenant AND q.queue = m.queue AND q.events))
        SELECT coalesce(array_agg(id) FILTER (WHERE state = 'discarded' AND has_dependents), '{}'),
               coalesce(array_agg(DISTINCT queue) FILTER (WHERE state = 'available'), '{}')
          INTO frontier, released FROM moved;
        PERFORM pg_notify('allot_jobs', NEW.tenant || '/' || q) FROM unnest(released) q;
    END LOOP;
    PERFORM set_config('allot.settling', 'off', true);
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_settle_dependents AFTER UPDATE OF state ON jobs FOR EACH ROW
    WHEN (NEW.has_dependents AND NEW.state IN ('completed', 'discarded', 'cancelled')
          AND OLD.state NOT IN ('completed', 'discarded', 'cancelled'))
    EXECUTE FUNCTION allot_settle_dependents();

-- Job lifecycle events, opt-in per queue (`events`, allot_core::job::queue): a completion,
-- a cancel and each failed attempt (by its worker, or its lease expiring) of a job of such a
-- queue writes `job.completed`, `job.cancelled`, `job.failed` in its own transaction;
-- `batch.completed` is written by the settle above. The trigger fires on every finish and
-- failure and returns at once for a queue without the setting (one probe of its settings).
-- A completion that deletes the job (`keep_completed = false`) writes no event.
ALTER TABLE queue_settings ADD COLUMN events boolean NOT NULL DEFAULT false;
CREATE FUNCTION allot_job_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = NEW.tenant AND s.queue = NEW.queue AND s.events) THEN
        RETURN NULL;
    END IF;
    IF NEW.state IN ('completed', 'cancelled') THEN
        INSERT INTO events (tenant, type, object, data, at)
        VALUES (NEW.tenant, 'job.' || NEW.state, NEW.id::text,
                json_build_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt), NEW.finalized_at);
    ELSE
        INSERT INTO events (tenant, type, object, data, at)
        VALUES (NEW.tenant, 'job.failed', NEW.id::text,
                json_build_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt,
                                  'max_attempts', NEW.max_attempts, 'error', NEW.errors -> -1 ->> 'error',
                                  'retry_at', CASE WHEN NEW.state = 'retryable' THEN allot_instant(NEW.run_at) END),
                coalesce(NEW.finalized_at, (NEW.errors -> -1 ->> 'at')::timestamptz, NEW.run_at));
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_lifecycle_events AFTER UPDATE OF state ON jobs FOR EACH ROW
    WHEN ((NEW.state IN ('completed', 'cancelled') AND OLD.state IS DISTINCT FROM NEW.state)
          OR (OLD.state = 'running' AND NEW.state IN ('retryable', 'discarded')))
    EXECUTE FUNCTION allot_job_events();

-- allot.enqueue takes `depends_on` and `on_failed_dependency` too (the rules of
-- allot_core::job::depend::start, as the API's enqueue applies them). An unknown dependency
-- raises 23503 (foreign_key_violation) with DETAIL `unknown_dependency`; a chain deeper than
-- 100 raises 54000 (program_limit_exceeded) with DETAIL `limit_exceeded`. The old signature
-- is dropped first: beside the new one, a call by the old arguments would be ambiguous.
DO $do$
DECLARE
    target text := CASE current_schema() WHEN 'public' THEN 'allot' ELSE current_schema() || '_allot' END;
BEGIN
    EXECUTE format('DROP FUNCTION IF EXISTS %I.enqueue(text, jsonb, integer, timestamptz, integer, text, text, text[], jsonb, text)', target);
    EXECUTE format($f$
CREATE FUNCTION %I.enqueue(
    queue text, payload jsonb DEFAULT '{}', priority integer DEFAULT 1, run_at timestamptz DEFAULT NULL,
    max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL, partition_key text DEFAULT NULL,
    tags text[] DEFAULT '{}', metadata jsonb DEFAULT '{}', tenant text DEFAULT 'default',
    depends_on bigint[] DEFAULT '{}', on_failed_dependency text DEFAULT 'discard')
RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
#variable_conflict use_column
DECLARE
    new_id bigint;
    at timestamptz := coalesce(enqueue.run_at, now());
    deps bigint[] := ARRAY(SELECT DISTINCT d FROM unnest(coalesce(enqueue.depends_on, '{}')) d ORDER BY d);
    found int := 0;
    pending int := 0;
    depth int := 0;
    failed text;
    st text;
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
    IF enqueue.priority IS NULL OR enqueue.priority NOT BETWEEN 1 AND 4 THEN
        RAISE EXCEPTION 'allot.enqueue: priority must be 1..=4 (1 runs first)' USING ERRCODE = '22023';
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
    IF enqueue.on_failed_dependency IS NULL OR enqueue.on_failed_dependency NOT IN ('discard', 'run') THEN
        RAISE EXCEPTION 'allot.enqueue: on_failed_dependency must be discard or run' USING ERRCODE = '22023';
    END IF;
    IF cardinality(deps) > 100 OR array_position(deps, NULL) IS NOT NULL OR EXISTS (SELECT 1 FROM unnest(deps) d WHERE d < 1) THEN
        RAISE EXCEPTION 'allot.enqueue: depends_on must be at most 100 positive job ids' USING ERRCODE = '22023';
    END IF;
    IF cardinality(deps) > 0 THEN
        WITH locked AS (
            SELECT j.id FROM jobs j WHERE j.tenant = enqueue.tenant AND j.id = ANY(deps) ORDER BY j.id FOR UPDATE),
        marked AS (
            UPDATE jobs j SET has_dependents = j.has_dependents IS TRUE OR j.state NOT IN ('completed', 'discarded', 'cancelled')
              FROM locked l WHERE j.tenant = enqueue.tenant AND j.id = l.id
            RETURNING j.id, j.state, j.dependency_depth)
        SELECT count(*), count(*) FILTER (WHERE m.state NOT IN ('completed', 'discarded', 'cancelled')),
               coalesce(max(coalesce(m.dependency_depth, 0)) + 1, 0),
               (array_agg('job ' || m.id || ' ' || m.state ORDER BY m.id) FILTER (WHERE m.state IN ('discarded', 'cancelled')))[1]
          INTO found, pending, depth, failed FROM marked m;
        IF found < cardinality(deps) THEN
            RAISE EXCEPTION 'allot.enqueue: depends_on names a job this tenant does not have'
                USING ERRCODE = '23503', DETAIL = 'unknown_dependency';
        END IF;
        IF depth > 100 THEN
            RAISE EXCEPTION 'allot.enqueue: the job would be at dependency depth %% (at most 100)', depth
                USING ERRCODE = '54000', DETAIL = 'limit_exceeded';
        END IF;
    END IF;
    -- Inserted runnable, then started (as the API does): a job that starts discarded is
    -- still its unique key's holder at the insert, and its discard is a `job.discarded`.
    st := CASE WHEN failed IS NOT NULL AND enqueue.on_failed_dependency = 'discard' THEN 'discarded'
               WHEN pending > 0 THEN 'pending' WHEN at > now() THEN 'scheduled' ELSE 'available' END;
    -- A unique key whose holder finishes between the insert and the read is inserted again.
    FOR try_n IN 1..3 LOOP
        INSERT INTO jobs AS j (tenant, queue, state, priority, payload, run_at, max_attempts, unique_key,
                               partition_key, tags, metadata, created_at)
        VALUES (enqueue.tenant, enqueue.queue, CASE WHEN at > now() THEN 'scheduled' ELSE 'available' END,
                enqueue.priority, coalesce(enqueue.payload, 'null')::json, at,
                enqueue.max_attempts, enqueue.unique_key, enqueue.partition_key, coalesce(enqueue.tags, '{}'),
                enqueue.metadata::json, now())
        ON CONFLICT (tenant, queue, unique_key)
           WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled')
        DO NOTHING RETURNING j.id INTO new_id;
        IF new_id IS NOT NULL AND cardinality(deps) > 0 THEN
            UPDATE jobs j SET state = st, dependencies_pending = pending, dependency_depth = depth,
                   on_failed_dependency = enqueue.on_failed_dependency,
                   finalized_at = CASE WHEN st = 'discarded' THEN now() END,
                   dependency_failure = CASE WHEN st = 'discarded' THEN failed END
             WHERE j.tenant = enqueue.tenant AND j.id = new_id;
        END IF;
        IF new_id IS NOT NULL THEN
            INSERT INTO job_dependencies (tenant, job_id, depends_on)
            SELECT enqueue.tenant, new_id, d.id FROM jobs d
             WHERE d.tenant = enqueue.tenant AND d.id = ANY(deps) AND d.state NOT IN ('completed', 'discarded', 'cancelled');
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
