-- Incoming stock and its receipts (issue 58, allot_core::receiving). An incoming row is stock
-- expected at a location; `received` counts what receipts took of it, never more than its
-- quantity (the CHECK is the last word; a receipt locks the row and refuses more with
-- `exceeds_incoming` first). What is still incoming is `quantity - received`; the partial
-- index holds the open ones, which the SKU answer sums per location.
CREATE TABLE incoming (
    tenant      text NOT NULL,
    id          text NOT NULL,
    sku         text NOT NULL,
    location    text NOT NULL,
    quantity    bigint NOT NULL CHECK (quantity > 0),
    received    bigint NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= quantity),
    expected_at timestamptz,
    reference   text,
    actor       text,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX incoming_open ON incoming (tenant, sku, location) WHERE received < quantity;

-- Each receipt: its ledger entry points at it (`ref`, kind `received`).
CREATE TABLE receipts (
    tenant      text NOT NULL,
    id          text NOT NULL,
    sku         text NOT NULL,
    location    text NOT NULL,
    quantity    bigint NOT NULL CHECK (quantity > 0),
    incoming_id text,
    reference   text,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX receipts_incoming ON receipts (tenant, incoming_id) WHERE incoming_id IS NOT NULL;
