-- Returns (issue 18), as on PostgreSQL.
CREATE TABLE returns (
    tenant        TEXT NOT NULL,
    id            TEXT NOT NULL,
    line          INTEGER NOT NULL,
    allocation_id TEXT NOT NULL,
    sku           TEXT NOT NULL,
    location      TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('sellable', 'damaged')),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, id, line)
);
CREATE INDEX returns_allocation ON returns (tenant, allocation_id);
