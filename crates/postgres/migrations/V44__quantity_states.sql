-- Quantity states (issue 58, allot_core::states). The sellable part of on hand (available +
-- held) stays in `stock`, so allocations and holds touch no new row; the unsellable states
-- (`damaged`, `quality_control`, `safety_stock`) are counted here, one row per (SKU, location,
-- state), never below zero. A move writes one `moved` ledger entry (its `ref` the move) whose
-- delta is what it did to the sellable part, and one `moves` row, which the audit sums per
-- state against these counts.
CREATE TABLE stock_states (
    tenant   text NOT NULL,
    sku      text NOT NULL,
    location text NOT NULL,
    state    text NOT NULL CHECK (state IN ('damaged', 'quality_control', 'safety_stock')),
    quantity bigint NOT NULL CHECK (quantity >= 0),
    PRIMARY KEY (tenant, sku, location, state)
);

CREATE TABLE moves (
    tenant     text NOT NULL,
    id         text NOT NULL,
    sku        text NOT NULL,
    location   text NOT NULL,
    from_state text NOT NULL,
    to_state   text NOT NULL CHECK (to_state <> from_state),
    quantity   bigint NOT NULL CHECK (quantity > 0),
    reason     text NOT NULL,
    reference  text,
    actor      text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX moves_sku ON moves (tenant, sku, location);
