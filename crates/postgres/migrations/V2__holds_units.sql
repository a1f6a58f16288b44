-- Holds and units (PostgreSQL).

-- `count`: the SKU's counts live in `stock`. `units`: they are derived from its rows in
-- `units` (on_hand = units not allocated, held = units held), so they agree at every moment.
ALTER TABLE skus ADD COLUMN tracking text NOT NULL DEFAULT 'count' CHECK (tracking IN ('count', 'units'));

CREATE TABLE holds (
    id          text PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('stock', 'units')),
    status      text NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
    strategy    text NOT NULL,
    lines       jsonb NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL,
    finished_at timestamptz
);
-- The sweeper's and the writers' "overdue holds" lookups; small because finished holds leave it.
CREATE INDEX holds_active_expiry ON holds (expires_at) WHERE status = 'held';

-- Which bucket each line of a stock hold took (a release must give back to that bucket).
-- Unit holds have one line with bucket -1.
CREATE TABLE hold_lines (
    hold_id  text NOT NULL,
    sku      text NOT NULL,
    bucket   int NOT NULL,
    quantity bigint NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (hold_id, sku, bucket)
);

CREATE TABLE units (
    id          bigserial PRIMARY KEY,
    sku         text NOT NULL,
    serial      text NOT NULL,
    location    text,
    lot         text,
    received_at timestamptz NOT NULL,
    expires_at  timestamptz,
    status      text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'held', 'allocated')),
    -- The hold or allocation that has the unit (NULL while available).
    claim_id    text,
    CHECK ((status = 'available') = (claim_id IS NULL)),
    UNIQUE (sku, serial)
);
-- Candidate scans: partial indexes over available units only, one per indexed order, so
-- `ORDER BY … LIMIT n` reads the head of an index instead of sorting the SKU. NULL sorts as
-- the smallest value (as in SQLite), hence NULLS FIRST; read backwards they serve DESC too.
CREATE INDEX units_available_id ON units (sku, id) WHERE status = 'available';
CREATE INDEX units_available_received ON units (sku, received_at NULLS FIRST, location NULLS FIRST, id)
    WHERE status = 'available';
CREATE INDEX units_available_expiry ON units (sku, expires_at NULLS FIRST, id) WHERE status = 'available';
CREATE INDEX units_claim ON units (claim_id) WHERE claim_id IS NOT NULL;
-- Derived counts (on_hand, held) by index-only scans.
CREATE INDEX units_sku_status ON units (sku, status);
