-- The queue people pay for (issue 27): per-key limits and FIFO, pause, rates, snooze, output,
-- tags and metadata. Times are UTC microseconds. Claims of a queue with settings obey them
-- inside the claim's write transaction (one writer at a time: exact by construction).
ALTER TABLE jobs ADD COLUMN partition_key TEXT;
ALTER TABLE jobs ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE jobs ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE jobs ADD COLUMN output TEXT;

-- A key's unfinished jobs by id: FIFO predecessors and what runs per key.
CREATE INDEX jobs_partition ON jobs (tenant, queue, partition_key, id)
    WHERE partition_key IS NOT NULL AND state IN ('available', 'scheduled', 'retryable', 'running');

-- A queue's settings; a queue without a row has none (not paused, no limit).
CREATE TABLE queue_settings (
    tenant              TEXT NOT NULL,
    queue               TEXT NOT NULL,
    paused              INTEGER NOT NULL DEFAULT 0,
    max_running         INTEGER CHECK (max_running >= 1),
    max_running_per_key INTEGER CHECK (max_running_per_key >= 1),
    rate_per_window     INTEGER CHECK (rate_per_window >= 1),
    rate_window_ms      INTEGER CHECK (rate_window_ms >= 1),
    rate_per_key        INTEGER NOT NULL DEFAULT 0,
    fifo_per_key        INTEGER NOT NULL DEFAULT 0,
    CHECK ((rate_per_window IS NULL) = (rate_window_ms IS NULL)),
    PRIMARY KEY (tenant, queue)
);

-- Starts of jobs in rate-limited queues, for the sliding window.
CREATE TABLE job_starts (
    tenant        TEXT NOT NULL,
    queue         TEXT NOT NULL,
    partition_key TEXT,
    started_at_us INTEGER NOT NULL
);
CREATE INDEX job_starts_window ON job_starts (tenant, queue, started_at_us);
