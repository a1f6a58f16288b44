-- Schedules (issue 27): a cron expression in a time zone that enqueues a job template at each
-- tick. A pass locks each due row (FOR UPDATE SKIP LOCKED), enqueues its ticks and moves
-- `next_run_at` past now in one transaction, so each tick is enqueued once across instances.
CREATE TABLE schedules (
    tenant      text NOT NULL,
    name        text NOT NULL,
    cron        text NOT NULL,
    timezone    text NOT NULL,
    queue       text NOT NULL,
    job         json NOT NULL,
    missed      text NOT NULL CHECK (missed IN ('skip', 'run_once')),
    paused      boolean NOT NULL DEFAULT false,
    next_run_at timestamptz NOT NULL,
    last_run_at timestamptz,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant, name)
);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE NOT paused;
