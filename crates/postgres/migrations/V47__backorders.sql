-- Backorders (issue 58, allot_core::backorder). A SKU may owe up to `backorder_limit` units
-- beyond stock; each owed allocation line is one row here, filled oldest first (`seq`) in the
-- transaction that brings stock back at a location it may use (`location`: the line's pinned
-- one; NULL: any). `fills` lists each fill's location and quantity in order (its sum is
-- `filled`); a cancel sets `cancelled` to what was still owed. Each fill is also one ledger
-- entry of kind `backorder_filled` (its `ref` the allocation), which the audit sums.
ALTER TABLE skus ADD COLUMN backorder_limit bigint NOT NULL DEFAULT 0 CHECK (backorder_limit >= 0);

CREATE TABLE backorders (
    tenant        text NOT NULL,
    allocation_id text NOT NULL,
    sku           text NOT NULL,
    location      text,
    quantity      bigint NOT NULL CHECK (quantity > 0),
    filled        bigint NOT NULL DEFAULT 0 CHECK (filled >= 0),
    cancelled     bigint NOT NULL DEFAULT 0 CHECK (cancelled >= 0),
    fills         jsonb NOT NULL DEFAULT '[]',
    seq           bigint GENERATED ALWAYS AS IDENTITY,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (tenant, allocation_id, sku),
    CHECK (filled + cancelled <= quantity)
);
-- The owed lines of a SKU, oldest first: what a fill walks.
CREATE INDEX backorders_owed ON backorders (tenant, sku, seq) WHERE filled + cancelled < quantity;
