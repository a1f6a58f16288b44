-- allot stock schema (SQLite). Same shape as the PostgreSQL one; times are UTC microseconds.
CREATE TABLE skus (
    sku           TEXT PRIMARY KEY,
    buckets       INTEGER NOT NULL DEFAULT 1 CHECK (buckets >= 1),
    created_at_us INTEGER NOT NULL
);

CREATE TABLE stock (
    sku     TEXT NOT NULL,
    bucket  INTEGER NOT NULL,
    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
    held    INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= on_hand),
    version INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (sku, bucket)
) WITHOUT ROWID;

CREATE TABLE ledger (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    sku        TEXT NOT NULL,
    delta      INTEGER NOT NULL,
    held_delta INTEGER NOT NULL DEFAULT 0,
    kind       TEXT NOT NULL,
    ref        TEXT,
    at_us      INTEGER NOT NULL
);
CREATE INDEX ledger_sku_id ON ledger (sku, id);

CREATE TABLE allocations (
    id            TEXT PRIMARY KEY,
    status        TEXT NOT NULL,
    strategy      TEXT NOT NULL,
    lines         TEXT NOT NULL,
    created_at_us INTEGER NOT NULL
);

CREATE TABLE idempotency_keys (
    key           TEXT PRIMARY KEY,
    fingerprint   TEXT NOT NULL,
    status        INTEGER NOT NULL,
    body          BLOB NOT NULL,
    created_at_us INTEGER NOT NULL
);
