-- Jobs (PostgreSQL): a queue table in the manner of River / Oban / graphile-worker.
CREATE TABLE jobs (
    id               bigserial PRIMARY KEY,
    queue            text NOT NULL,
    state            text NOT NULL CHECK (state IN ('available', 'scheduled', 'running', 'retryable',
                                                    'completed', 'discarded', 'cancelled')),
    priority         smallint NOT NULL DEFAULT 1 CHECK (priority BETWEEN 1 AND 4),
    payload          jsonb NOT NULL,
    run_at           timestamptz NOT NULL,
    attempt          int NOT NULL DEFAULT 0,
    max_attempts     int NOT NULL CHECK (max_attempts >= 1),
    errors           jsonb NOT NULL DEFAULT '[]',
    unique_key       text,
    lease_token      text,
    lease_expires_at timestamptz,
    worker           text,
    created_at       timestamptz NOT NULL,
    attempted_at     timestamptz,
    finalized_at     timestamptz,
    CHECK ((state = 'running') = (lease_token IS NOT NULL))
);
-- The claim scan: runnable jobs of a queue, best first.
CREATE INDEX jobs_fetch ON jobs (queue, priority, run_at, id) WHERE state IN ('available', 'scheduled', 'retryable');
-- Unique jobs: race-free, by index, among unfinished jobs of a queue.
CREATE UNIQUE INDEX jobs_unique ON jobs (queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
-- Rescue of expired leases.
CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_queue_state ON jobs (queue, state);
-- Pruning of finished jobs after the retention.
CREATE INDEX jobs_finalized ON jobs (finalized_at) WHERE state IN ('completed', 'discarded', 'cancelled');
