-- Holds and units (SQLite). Same shape as PostgreSQL; times are UTC microseconds.
-- units.received_at / units.expires_at keep the API's column names (claims order by them).
ALTER TABLE skus ADD COLUMN tracking TEXT NOT NULL DEFAULT 'count' CHECK (tracking IN ('count', 'units'));

CREATE TABLE holds (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('stock', 'units')),
    status         TEXT NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
    strategy       TEXT NOT NULL,
    lines          TEXT NOT NULL,
    expires_at_us  INTEGER NOT NULL,
    created_at_us  INTEGER NOT NULL,
    finished_at_us INTEGER
);
CREATE INDEX holds_active_expiry ON holds (expires_at_us) WHERE status = 'held';

CREATE TABLE hold_lines (
    hold_id  TEXT NOT NULL,
    sku      TEXT NOT NULL,
    bucket   INTEGER NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (hold_id, sku, bucket)
) WITHOUT ROWID;
CREATE INDEX hold_lines_sku ON hold_lines (sku);

CREATE TABLE units (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    sku         TEXT NOT NULL,
    serial      TEXT NOT NULL,
    location    TEXT,
    lot         TEXT,
    received_at INTEGER NOT NULL, -- UTC microseconds
    expires_at  INTEGER,          -- UTC microseconds
    status      TEXT NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'held', 'allocated')),
    claim_id    TEXT,
    CHECK ((status = 'available') = (claim_id IS NULL)),
    UNIQUE (sku, serial)
);
CREATE INDEX units_available_received ON units (sku, received_at, location, id) WHERE status = 'available';
CREATE INDEX units_available_expiry ON units (sku, expires_at, id) WHERE status = 'available';
CREATE INDEX units_claim ON units (claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX units_sku_status ON units (sku, status);
