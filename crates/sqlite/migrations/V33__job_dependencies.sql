-- Job dependencies (issue 59; the rules: allot_core::job::depend). A job enqueued with
-- `depends_on` waits in state `pending` until every dependency completed; it counts the
-- dependencies it still waits for (`dependencies_pending`), an edge table says who waits for
-- whom, and a job waited for carries `has_dependents`, so that the trigger below fires only
-- for such jobs. The state's CHECK gains `pending`: SQLite changes a CHECK only by building
-- the table again (lang_altertable.html, "Making Other Kinds Of Table Schema Changes"), so
-- `jobs` is copied into a new table, and its indexes and triggers are made again as V11-V32
-- left them.
CREATE TABLE jobs_t (
    rid                  INTEGER PRIMARY KEY,
    id                   INTEGER,
    tenant               TEXT NOT NULL,
    queue                TEXT NOT NULL,
    state                TEXT NOT NULL CHECK (state IN ('pending', 'available', 'scheduled', 'running', 'retryable',
                                                        'completed', 'discarded', 'cancelled')),
    priority             INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 1 AND 4),
    payload              TEXT NOT NULL,
    run_at_us            INTEGER NOT NULL,
    attempt              INTEGER NOT NULL DEFAULT 0,
    max_attempts         INTEGER NOT NULL CHECK (max_attempts >= 1),
    errors               TEXT NOT NULL DEFAULT '[]',
    unique_key           TEXT,
    lease_token          TEXT,
    lease_expires_at_us  INTEGER,
    worker               TEXT,
    created_at_us        INTEGER NOT NULL,
    attempted_at_us      INTEGER,
    finalized_at_us      INTEGER,
    partition_key        TEXT,
    tags                 TEXT NOT NULL DEFAULT '[]',
    metadata             TEXT NOT NULL DEFAULT '{}',
    output               TEXT,
    traceparent          TEXT,
    dependencies_pending INTEGER NOT NULL DEFAULT 0,
    dependency_depth     INTEGER NOT NULL DEFAULT 0,
    has_dependents       INTEGER NOT NULL DEFAULT 0,
    on_failed_dependency TEXT NOT NULL DEFAULT 'discard' CHECK (on_failed_dependency IN ('discard', 'run')),
    -- What discarded it because of its dependencies: `job 7 discarded`, the job whose end
    -- started the cascade (allot_core::job::depend::failure); passed on down the chain.
    dependency_failure   TEXT,
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    UNIQUE (tenant, id)
);
INSERT INTO jobs_t (rid, id, tenant, queue, state, priority, payload, run_at_us, attempt, max_attempts, errors,
                    unique_key, lease_token, lease_expires_at_us, worker, created_at_us, attempted_at_us,
                    finalized_at_us, partition_key, tags, metadata, output, traceparent)
SELECT rid, id, tenant, queue, state, priority, payload, run_at_us, attempt, max_attempts, errors,
       unique_key, lease_token, lease_expires_at_us, worker, created_at_us, attempted_at_us,
       finalized_at_us, partition_key, tags, metadata, output, traceparent
  FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_t RENAME TO jobs;

CREATE INDEX jobs_finalized ON jobs (finalized_at_us) WHERE state IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_fetch ON jobs (tenant, queue, priority, run_at_us, id) WHERE state IN ('available', 'scheduled', 'retryable');
CREATE UNIQUE INDEX jobs_unique ON jobs (tenant, queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_partition ON jobs (tenant, queue, partition_key, id)
    WHERE partition_key IS NOT NULL AND state IN ('available', 'scheduled', 'retryable', 'running');
CREATE INDEX jobs_queue_state_id ON jobs (tenant, queue, state, id);
CREATE INDEX jobs_fair ON jobs (tenant, queue, coalesce(partition_key, ''), priority, run_at_us, id)
    WHERE state IN ('available', 'scheduled', 'retryable');

CREATE TRIGGER jobs_id AFTER INSERT ON jobs WHEN NEW.id IS NULL BEGIN
    INSERT INTO tenant_ids (tenant, kind, last_id) VALUES (NEW.tenant, 'jobs', 1)
        ON CONFLICT (tenant, kind) DO UPDATE SET last_id = last_id + 1;
    UPDATE jobs SET id = (SELECT last_id FROM tenant_ids WHERE tenant = NEW.tenant AND kind = 'jobs')
     WHERE rid = NEW.rid;
END;
CREATE TRIGGER job_discarded AFTER UPDATE OF state ON jobs
    WHEN NEW.state = 'discarded' AND OLD.state IS NOT 'discarded' BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'job.discarded', CAST(NEW.id AS TEXT),
            json_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt, 'max_attempts', NEW.max_attempts),
            NEW.finalized_at_us);
END;
CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs BEGIN
    INSERT INTO queue_counts (tenant, queue, state, jobs) VALUES (NEW.tenant, NEW.queue, NEW.state, 1)
    ON CONFLICT (tenant, queue, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_count_update AFTER UPDATE OF state ON jobs WHEN OLD.state <> NEW.state BEGIN
    UPDATE queue_counts SET jobs = jobs - 1 WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state;
    DELETE FROM queue_counts WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state AND jobs = 0;
    INSERT INTO queue_counts (tenant, queue, state, jobs) VALUES (NEW.tenant, NEW.queue, NEW.state, 1)
    ON CONFLICT (tenant, queue, state) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs BEGIN
    UPDATE queue_counts SET jobs = jobs - 1 WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state;
    DELETE FROM queue_counts WHERE tenant = OLD.tenant AND queue = OLD.queue AND state = OLD.state AND jobs = 0;
END;

-- Who waits for whom, until the dependency finishes (then the edge is settled and
-- deleted). A job's own edges go with it (pruning, deletion): a job with
-- dependencies has a depth of at least 1.
CREATE TABLE job_dependencies (
    tenant     TEXT NOT NULL,
    job_id     INTEGER NOT NULL,
    depends_on INTEGER NOT NULL,
    PRIMARY KEY (tenant, depends_on, job_id)
) WITHOUT ROWID;
CREATE INDEX job_dependencies_job ON job_dependencies (tenant, job_id);
-- Batches with a callback (allot_core::job::batch): the callback is a job that depends on
-- every member with `on_failed_dependency = 'run'`; its batch's row counts how the members
-- ended, added to as each one is settled, and goes with the callback job.
CREATE TABLE batches (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    job_id        INTEGER NOT NULL,
    jobs          INTEGER NOT NULL,
    completed     INTEGER NOT NULL DEFAULT 0,
    discarded     INTEGER NOT NULL DEFAULT 0,
    cancelled     INTEGER NOT NULL DEFAULT 0,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE UNIQUE INDEX batches_job ON batches (tenant, job_id);
CREATE TRIGGER jobs_drop_edges AFTER DELETE ON jobs WHEN OLD.dependency_depth > 0 BEGIN
    DELETE FROM job_dependencies WHERE tenant = OLD.tenant AND job_id = OLD.id;
    DELETE FROM batches WHERE tenant = OLD.tenant AND job_id = OLD.id;
END;

-- Settle the dependents of a job that just finished, in the transaction that finished it, at
-- the instant it finished (allot_core::job::depend::settle): each pending dependent counts
-- one dependency less and becomes runnable at zero, or is discarded when the dependency
-- failed and it does not say `run`. A dependent so discarded fires this trigger in turn
-- (the store turns `recursive_triggers` on; depth is bounded by `max_dependency_depth`, below
-- SQLite's 1000 levels of triggers). One writer at a time: the count reaches zero once.
-- Each edge is settled once: it is deleted as it is settled, so a dependency run again by
-- hand and finished again counts for nothing more.
CREATE TRIGGER jobs_settle_dependents AFTER UPDATE OF state ON jobs
    WHEN NEW.has_dependents AND NEW.state IN ('completed', 'discarded', 'cancelled')
         AND OLD.state NOT IN ('completed', 'discarded', 'cancelled') BEGIN
    UPDATE batches SET completed = completed + (NEW.state = 'completed'), discarded = discarded + (NEW.state = 'discarded'),
                       cancelled = cancelled + (NEW.state = 'cancelled')
     WHERE tenant = NEW.tenant
       AND job_id IN (SELECT job_id FROM job_dependencies WHERE tenant = NEW.tenant AND depends_on = NEW.id);
    UPDATE jobs SET
        dependencies_pending = dependencies_pending - 1,
        state = CASE WHEN NEW.state <> 'completed' AND on_failed_dependency = 'discard' THEN 'discarded'
                     WHEN dependencies_pending > 1 THEN 'pending'
                     WHEN run_at_us > NEW.finalized_at_us THEN 'scheduled' ELSE 'available' END,
        finalized_at_us = CASE WHEN NEW.state <> 'completed' AND on_failed_dependency = 'discard'
                               THEN NEW.finalized_at_us END,
        dependency_failure = CASE WHEN NEW.state <> 'completed' AND on_failed_dependency = 'discard'
                                  THEN coalesce(NEW.dependency_failure, 'job ' || NEW.id || ' ' || NEW.state) END,
        payload = CASE WHEN dependencies_pending <= 1 AND NOT (NEW.state <> 'completed' AND on_failed_dependency = 'discard')
                            AND EXISTS (SELECT 1 FROM batches b WHERE b.tenant = jobs.tenant AND b.job_id = jobs.id)
                       THEN json_set(payload, '$.batch', json((SELECT json_object('id', b.id, 'jobs', b.jobs,
                                'completed', b.completed, 'discarded', b.discarded, 'cancelled', b.cancelled)
                                FROM batches b WHERE b.tenant = jobs.tenant AND b.job_id = jobs.id)))
                       ELSE payload END
     WHERE tenant = NEW.tenant AND state = 'pending'
       AND id IN (SELECT job_id FROM job_dependencies WHERE tenant = NEW.tenant AND depends_on = NEW.id);
    INSERT INTO events (tenant, type, object, data, at_us)
    SELECT NEW.tenant, 'batch.completed', b.id,
           json_object('id', b.id, 'callback_id', j.id, 'queue', j.queue, 'jobs', b.jobs, 'completed', b.completed,
                       'discarded', b.discarded, 'cancelled', b.cancelled),
           NEW.finalized_at_us
      FROM jobs j JOIN batches b ON b.tenant = j.tenant AND b.job_id = j.id
     WHERE j.tenant = NEW.tenant AND j.state IN ('available', 'scheduled') AND j.dependencies_pending = 0
       AND j.id IN (SELECT job_id FROM job_dependencies WHERE tenant = NEW.tenant AND depends_on = NEW.id)
       AND EXISTS (SELECT 1 FROM queue_settings q WHERE q.tenant = j.tenant AND q.queue = j.queue AND q.events);
    DELETE FROM job_dependencies WHERE tenant = NEW.tenant AND depends_on = NEW.id;
END;

-- Job lifecycle events, opt-in per queue (`events`, allot_core::job::queue): a completion,
-- a cancel and each failed attempt (by its worker, or its lease expiring) of a job of such a
-- queue writes `job.completed`, `job.cancelled`, `job.failed` in its own transaction;
-- `batch.completed` is written by the settle above. A completion that deletes the job
-- (`keep_completed = false`) writes no event.
ALTER TABLE queue_settings ADD COLUMN events INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER jobs_lifecycle_events AFTER UPDATE OF state ON jobs
    WHEN ((NEW.state IN ('completed', 'cancelled') AND OLD.state <> NEW.state)
          OR (OLD.state = 'running' AND NEW.state IN ('retryable', 'discarded')))
         AND EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = NEW.tenant AND s.queue = NEW.queue AND s.events) BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant,
            CASE WHEN NEW.state IN ('completed', 'cancelled') THEN 'job.' || NEW.state ELSE 'job.failed' END,
            CAST(NEW.id AS TEXT),
            CASE WHEN NEW.state IN ('completed', 'cancelled')
                 THEN json_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt)
                 ELSE json_object('id', NEW.id, 'queue', NEW.queue, 'attempt', NEW.attempt, 'max_attempts', NEW.max_attempts,
                                  'error', json_extract(NEW.errors, '$[#-1].error'),
                                  'retry_at', CASE WHEN NEW.state = 'retryable'
                                                   THEN strftime('%Y-%m-%dT%H:%M:%S', NEW.run_at_us / 1000000, 'unixepoch')
                                                        || printf('.%06dZ', NEW.run_at_us % 1000000) END) END,
            coalesce(NEW.finalized_at_us,
                     CAST(unixepoch(json_extract(NEW.errors, '$[#-1].at'), 'subsec') * 1000000 AS INTEGER), NEW.run_at_us));
END;
