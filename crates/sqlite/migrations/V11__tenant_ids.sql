-- Per-tenant ids (issue 24). Ledger entries, units and jobs took their ids from one
-- AUTOINCREMENT sequence per table, so a tenant read the others' activity from the gaps
-- between its own ids. Each (table, tenant) now counts in `tenant_ids`, and an AFTER INSERT
-- trigger gives a row inserted without an id its tenant's next one (SQLite has one writer,
-- so the counter row costs no waiting). The tables are made anew: the internal row key
-- `rid` (never shown) replaces `id` as the INTEGER PRIMARY KEY, and `id` is unique per tenant.

CREATE TABLE tenant_ids (
    tenant  TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('ledger', 'units', 'jobs')),
    last_id INTEGER NOT NULL,
    PRIMARY KEY (tenant, kind)
) WITHOUT ROWID;

-- Every tenant known before (rows, keys, `default`) continues after the old sequence, so
-- none of its ids is ever given again (not even one whose job was pruned).
WITH known AS (
    SELECT tenant FROM ledger UNION SELECT tenant FROM units UNION SELECT tenant FROM jobs
    UNION SELECT tenant FROM api_keys UNION SELECT 'default'),
kinds (kind, last_id) AS (
    SELECT 'ledger', coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'ledger'), (SELECT max(id) FROM ledger), 0)
    UNION ALL SELECT 'units', coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'units'), (SELECT max(id) FROM units), 0)
    UNION ALL SELECT 'jobs', coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), (SELECT max(id) FROM jobs), 0))
INSERT INTO tenant_ids (tenant, kind, last_id) SELECT tenant, kind, last_id FROM known, kinds WHERE last_id > 0;

CREATE TABLE ledger_t (
    rid        INTEGER PRIMARY KEY,
    id         INTEGER,
    tenant     TEXT NOT NULL,
    sku        TEXT NOT NULL,
    delta      INTEGER NOT NULL,
    held_delta INTEGER NOT NULL DEFAULT 0,
    kind       TEXT NOT NULL,
    ref        TEXT,
    at_us      INTEGER NOT NULL,
    actor      TEXT,
    location   TEXT
);
INSERT INTO ledger_t (rid, id, tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
SELECT id, id, tenant, sku, delta, held_delta, kind, ref, at_us, actor, location FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_t RENAME TO ledger;
CREATE UNIQUE INDEX ledger_sku_id ON ledger (tenant, sku, id);

CREATE TABLE units_t (
    rid         INTEGER PRIMARY KEY,
    id          INTEGER,
    tenant      TEXT NOT NULL,
    sku         TEXT NOT NULL,
    serial      TEXT NOT NULL,
    location    TEXT,
    lot         TEXT,
    received_at INTEGER NOT NULL,
    expires_at  INTEGER,
    status      TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'held', 'allocated')),
    claim_id    TEXT,
    CHECK ((status = 'available') = (claim_id IS NULL)),
    UNIQUE (tenant, sku, serial),
    UNIQUE (tenant, id)
);
INSERT INTO units_t (rid, id, tenant, sku, serial, location, lot, received_at, expires_at, status, claim_id)
SELECT id, id, tenant, sku, serial, location, lot, received_at, expires_at, status, claim_id FROM units;
DROP TABLE units;
ALTER TABLE units_t RENAME TO units;
CREATE INDEX units_available_received ON units (tenant, sku, received_at, location, id) WHERE status = 'available';
CREATE INDEX units_available_expiry ON units (tenant, sku, expires_at, id) WHERE status = 'available';
CREATE INDEX units_claim ON units (tenant, claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX units_sku_status ON units (tenant, sku, status);

CREATE TABLE jobs_t (
    rid                 INTEGER PRIMARY KEY,
    id                  INTEGER,
    tenant              TEXT NOT NULL,
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
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    UNIQUE (tenant, id)
);
INSERT INTO jobs_t (rid, id, tenant, queue, state, priority, payload, run_at_us, attempt, max_attempts, errors,
                    unique_key, lease_token, lease_expires_at_us, worker, created_at_us, attempted_at_us,
                    finalized_at_us)
SELECT id, id, tenant, queue, state, priority, payload, run_at_us, attempt, max_attempts, errors,
       unique_key, lease_token, lease_expires_at_us, worker, created_at_us, attempted_at_us, finalized_at_us
  FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_t RENAME TO jobs;
CREATE INDEX jobs_finalized ON jobs (finalized_at_us) WHERE state IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_fetch ON jobs (tenant, queue, priority, run_at_us, id) WHERE state IN ('available', 'scheduled', 'retryable');
CREATE UNIQUE INDEX jobs_unique ON jobs (tenant, queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_queue_state ON jobs (tenant, queue, state);

CREATE TRIGGER ledger_id AFTER INSERT ON ledger WHEN NEW.id IS NULL BEGIN
    INSERT INTO tenant_ids (tenant, kind, last_id) VALUES (NEW.tenant, 'ledger', 1)
        ON CONFLICT (tenant, kind) DO UPDATE SET last_id = last_id + 1;
    UPDATE ledger SET id = (SELECT last_id FROM tenant_ids WHERE tenant = NEW.tenant AND kind = 'ledger')
     WHERE rid = NEW.rid;
END;
CREATE TRIGGER units_id AFTER INSERT ON units WHEN NEW.id IS NULL BEGIN
    INSERT INTO tenant_ids (tenant, kind, last_id) VALUES (NEW.tenant, 'units', 1)
        ON CONFLICT (tenant, kind) DO UPDATE SET last_id = last_id + 1;
    UPDATE units SET id = (SELECT last_id FROM tenant_ids WHERE tenant = NEW.tenant AND kind = 'units')
     WHERE rid = NEW.rid;
END;
CREATE TRIGGER jobs_id AFTER INSERT ON jobs WHEN NEW.id IS NULL BEGIN
    INSERT INTO tenant_ids (tenant, kind, last_id) VALUES (NEW.tenant, 'jobs', 1)
        ON CONFLICT (tenant, kind) DO UPDATE SET last_id = last_id + 1;
    UPDATE jobs SET id = (SELECT last_id FROM tenant_ids WHERE tenant = NEW.tenant AND kind = 'jobs')
     WHERE rid = NEW.rid;
END;
