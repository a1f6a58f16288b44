-- Jobs (SQLite). Times are UTC microseconds.
CREATE TABLE jobs (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    queue               TEXT NOT NULL,
    state               TEXT NOT NULL CHECK (state IN ('available', 'scheduled', 'running', 'retryable',
                                                       'completed', 'discarded', 'cancelled')),
    priority            INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 1 AND 4),
    payload             TEXT NOT NULL,
    run_at_us           INTEGER NOT NULL,
    attempt             INTEGER NOT NULL DEFAULT 0,
    max_attempts        INTEGER NOT NULL CHECK (max_attempts >= 1),
    errors              TEXT NOT NULL DEFAULT '[]',
    unique_key          TEXT,
    lease_token         TEXT,
    lease_expires_at_us INTEGER,
    worker              TEXT,
    created_at_us       INTEGER NOT NULL,
    attempted_at_us     INTEGER,
    finalized_at_us     INTEGER,
    CHECK ((state = 'running') = (lease_token IS NOT NULL))
);
CREATE INDEX jobs_fetch ON jobs (queue, priority, run_at_us, id) WHERE state IN ('available', 'scheduled', 'retryable');
CREATE UNIQUE INDEX jobs_unique ON jobs (queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_queue_state ON jobs (queue, state);
CREATE INDEX jobs_finalized ON jobs (finalized_at_us) WHERE state IN ('completed', 'discarded', 'cancelled');
