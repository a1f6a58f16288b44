-- Webhooks (issue 26), as on PostgreSQL: endpoints per tenant, and how far each tenant's
-- feed has been handed to their deliveries (jobs of the internal tenant `allot/webhooks`).
CREATE TABLE webhooks (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    url           TEXT NOT NULL,
    types         TEXT NOT NULL,
    secret        BLOB NOT NULL,
    old_secret    BLOB,
    old_until_us  INTEGER,
    status        TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
    created_at_us INTEGER NOT NULL,
    -- It receives the events after this cursor (the tenant's highest when it was made).
    after_cursor  INTEGER NOT NULL,
    -- Its health: how the delivery attempts went (`record_attempt`).
    last_attempt_us      INTEGER,
    last_status          INTEGER,
    last_success_us      INTEGER,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    failing_since_us     INTEGER,
    PRIMARY KEY (tenant, id)
) WITHOUT ROWID;

CREATE TABLE webhook_dispatch (
    tenant TEXT PRIMARY KEY,
    last   INTEGER NOT NULL
) WITHOUT ROWID;
