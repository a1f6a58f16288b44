-- Returns (issue 18): what comes back of an allocation, line by line. A sellable line also
-- went back on hand at `location` (a `returned` ledger entry); a damaged one is only here.
CREATE TABLE returns (
    tenant        text NOT NULL,
    id            text NOT NULL,
    line          int NOT NULL,
    allocation_id text NOT NULL,
    sku           text NOT NULL,
    location      text NOT NULL,
    state         text NOT NULL CHECK (state IN ('sellable', 'damaged')),
    quantity      bigint NOT NULL CHECK (quantity > 0),
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant, id, line)
);
CREATE INDEX returns_allocation ON returns (tenant, allocation_id);
