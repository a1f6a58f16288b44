-- Tenants (issue 16): every object belongs to a tenant, the leading column of every key and
-- index. SQLite cannot change a table's keys in place, so the tables whose keys change are
-- made anew and filled from the old ones; existing rows go to the tenant `default`. The
-- tables keyed by an INTEGER PRIMARY KEY AUTOINCREMENT id (ledger, jobs) keep it (their
-- sequence stays as it is) and gain the column with a default, which SQLite requires.

CREATE TABLE skus_t (
    tenant        TEXT NOT NULL,
    sku           TEXT NOT NULL,
    buckets       INTEGER NOT NULL DEFAULT 1 CHECK (buckets >= 1),
    created_at_us INTEGER NOT NULL,
    tracking      TEXT NOT NULL DEFAULT 'count' CHECK (tracking IN ('count', 'units')),
    PRIMARY KEY (tenant, sku)
) WITHOUT ROWID;
INSERT INTO skus_t SELECT 'default', sku, buckets, created_at_us, tracking FROM skus;
DROP TABLE skus;
ALTER TABLE skus_t RENAME TO skus;

CREATE TABLE stock_t (
    tenant  TEXT NOT NULL,
    sku     TEXT NOT NULL,
    bucket  INTEGER NOT NULL,
    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
    held    INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= on_hand),
    version INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, sku, bucket)
) WITHOUT ROWID;
INSERT INTO stock_t SELECT 'default', sku, bucket, on_hand, held, version FROM stock;
DROP TABLE stock;
ALTER TABLE stock_t RENAME TO stock;

ALTER TABLE ledger ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
DROP INDEX ledger_sku_id;
CREATE INDEX ledger_sku_id ON ledger (tenant, sku, id);

CREATE TABLE allocations_t (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    status        TEXT NOT NULL,
    strategy      TEXT NOT NULL,
    lines         TEXT NOT NULL,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
) WITHOUT ROWID;
INSERT INTO allocations_t SELECT 'default', id, status, strategy, lines, created_at_us FROM allocations;
DROP TABLE allocations;
ALTER TABLE allocations_t RENAME TO allocations;

CREATE TABLE idempotency_keys_t (
    tenant        TEXT NOT NULL,
    key           TEXT NOT NULL,
    fingerprint   TEXT NOT NULL,
    status        INTEGER NOT NULL,
    body          BLOB NOT NULL,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, key)
);
INSERT INTO idempotency_keys_t SELECT 'default', key, fingerprint, status, body, created_at_us FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_t RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at_us);

CREATE TABLE holds_t (
    tenant         TEXT NOT NULL,
    id             TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('stock', 'units')),
    status         TEXT NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
    strategy       TEXT NOT NULL,
    lines          TEXT NOT NULL,
    expires_at_us  INTEGER NOT NULL,
    created_at_us  INTEGER NOT NULL,
    finished_at_us INTEGER,
    PRIMARY KEY (tenant, id)
);
INSERT INTO holds_t SELECT 'default', id, kind, status, strategy, lines, expires_at_us, created_at_us, finished_at_us
  FROM holds;
DROP TABLE holds;
ALTER TABLE holds_t RENAME TO holds;
CREATE INDEX holds_active_expiry ON holds (expires_at_us) WHERE status = 'held';

CREATE TABLE hold_lines_t (
    tenant   TEXT NOT NULL,
    hold_id  TEXT NOT NULL,
    sku      TEXT NOT NULL,
    bucket   INTEGER NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (tenant, hold_id, sku, bucket)
) WITHOUT ROWID;
INSERT INTO hold_lines_t SELECT 'default', hold_id, sku, bucket, quantity FROM hold_lines;
DROP TABLE hold_lines;
ALTER TABLE hold_lines_t RENAME TO hold_lines;
CREATE INDEX hold_lines_sku ON hold_lines (tenant, sku);

-- Units keep their ids (INTEGER PRIMARY KEY AUTOINCREMENT: the copy carries them, and the
-- sequence follows the largest).
CREATE TABLE units_t (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
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
    UNIQUE (tenant, sku, serial)
);
INSERT INTO units_t SELECT id, 'default', sku, serial, location, lot, received_at, expires_at, status, claim_id
  FROM units;
DROP TABLE units;
ALTER TABLE units_t RENAME TO units;
CREATE INDEX units_available_received ON units (tenant, sku, received_at, location, id) WHERE status = 'available';
CREATE INDEX units_available_expiry ON units (tenant, sku, expires_at, id) WHERE status = 'available';
CREATE INDEX units_claim ON units (tenant, claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX units_sku_status ON units (tenant, sku, status);

CREATE TABLE bookings_t (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    resource      TEXT NOT NULL,
    start_us      INTEGER NOT NULL,
    end_us        INTEGER NOT NULL CHECK (end_us > start_us),
    holder        TEXT NOT NULL,
    metadata      TEXT,
    status        TEXT NOT NULL CHECK (status IN ('confirmed', 'held', 'cancelled', 'released', 'expired')),
    strategy      TEXT NOT NULL,
    expires_at_us INTEGER,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
INSERT INTO bookings_t SELECT 'default', id, resource, start_us, end_us, holder, metadata, status, strategy,
       expires_at_us, created_at_us FROM bookings;
DROP TABLE bookings;
ALTER TABLE bookings_t RENAME TO bookings;
CREATE INDEX bookings_resource_start ON bookings (tenant, resource, start_us);
CREATE INDEX bookings_held_expiry ON bookings (expires_at_us) WHERE status = 'held';

ALTER TABLE jobs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
DROP INDEX jobs_fetch;
DROP INDEX jobs_unique;
DROP INDEX jobs_queue_state;
CREATE INDEX jobs_fetch ON jobs (tenant, queue, priority, run_at_us, id) WHERE state IN ('available', 'scheduled', 'retryable');
CREATE UNIQUE INDEX jobs_unique ON jobs (tenant, queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_queue_state ON jobs (tenant, queue, state);
