-- Backorders (issue 58, allot_core::backorder): as PostgreSQL's V47. `rid` orders the owed
-- lines of a SKU oldest first; `fills` is a JSON array of {location, quantity}.
ALTER TABLE skus ADD COLUMN backorder_limit INTEGER NOT NULL DEFAULT 0 CHECK (backorder_limit >= 0);

CREATE TABLE backorders (
    rid           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant        TEXT NOT NULL,
    allocation_id TEXT NOT NULL,
    sku           TEXT NOT NULL,
    location      TEXT,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    filled        INTEGER NOT NULL DEFAULT 0 CHECK (filled >= 0),
    cancelled     INTEGER NOT NULL DEFAULT 0 CHECK (cancelled >= 0),
    fills         TEXT NOT NULL DEFAULT '[]',
    created_at_us INTEGER NOT NULL,
    UNIQUE (tenant, allocation_id, sku),
    CHECK (filled + cancelled <= quantity)
);
CREATE INDEX backorders_owed ON backorders (tenant, sku, rid) WHERE filled + cancelled < quantity;

INSERT INTO ledger_event_types (kind, type) VALUES ('backorder_filled', 'allocation.filled');
INSERT INTO ledger_reasons (kind, reason) VALUES ('backorder_filled', 'sold');
