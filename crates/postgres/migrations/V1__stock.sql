-- allot stock schema (PostgreSQL). Every table carries its partition key (sku) and no
-- foreign key sits on a hot path: an FK check takes FOR KEY SHARE on the parent row, which
-- on a hot SKU turns into MultiXact churn.
CREATE TABLE skus (
    sku        text PRIMARY KEY,
    buckets    int NOT NULL DEFAULT 1 CHECK (buckets >= 1),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per bucket (segment); an unsegmented SKU has only bucket 0.
CREATE TABLE stock (
    sku     text NOT NULL,
    bucket  int NOT NULL,
    on_hand bigint NOT NULL CHECK (on_hand >= 0),
    held    bigint NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= on_hand),
    version bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (sku, bucket)
) WITH (fillfactor = 50);

-- Keyed by (sku, id): one index serves both uniqueness and paging a SKU's ledger, so an
-- allocation pays for one ledger index entry, not two.
CREATE TABLE ledger (
    id         bigserial,
    sku        text NOT NULL,
    delta      bigint NOT NULL,
    held_delta bigint NOT NULL DEFAULT 0,
    kind       text NOT NULL,
    ref        text,
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (sku, id)
);

CREATE TABLE allocations (
    id         text PRIMARY KEY,
    status     text NOT NULL,
    strategy   text NOT NULL,
    lines      jsonb NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE idempotency_keys (
    key         text PRIMARY KEY,
    fingerprint text NOT NULL,
    status      int NOT NULL,
    body        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
