-- Schedules (issue 27): a cron expression in a time zone that enqueues a job template at each
-- tick. Times are UTC microseconds. A pass runs in one write transaction: it enqueues each
-- due schedule's ticks and moves `next_run_at_us` past now.
CREATE TABLE schedules (
    tenant         TEXT NOT NULL,
    name           TEXT NOT NULL,
    cron           TEXT NOT NULL,
    timezone       TEXT NOT NULL,
    queue          TEXT NOT NULL,
    job            TEXT NOT NULL,
    missed         TEXT NOT NULL CHECK (missed IN ('skip', 'run_once')),
    paused         INTEGER NOT NULL DEFAULT 0,
    next_run_at_us INTEGER NOT NULL,
    last_run_at_us INTEGER,
    created_at_us  INTEGER NOT NULL,
    PRIMARY KEY (tenant, name)
);
CREATE INDEX schedules_due ON schedules (next_run_at_us) WHERE paused = 0;
