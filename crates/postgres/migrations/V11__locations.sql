-- Locations (issue 18). A SKU's stock rows each belong to a location; a row keeps its bucket
-- number (unique per SKU), so hold lines and the batch writes still name a row by bucket. A
-- location's rows are made when stock first arrives there (an adjustment, a receipt, a
-- transfer), `buckets` of them, numbered after the SKU's last.
CREATE TABLE locations (
    tenant     text NOT NULL,
    location   text NOT NULL,
    priority   int NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, location)
);

-- Every existing row is at `default`; then the column has no default, so a statement that
-- forgets the location fails.
ALTER TABLE stock ADD COLUMN location text NOT NULL DEFAULT 'default';
ALTER TABLE stock ALTER COLUMN location DROP DEFAULT;
CREATE INDEX stock_location ON stock (tenant, sku, location, bucket);

-- The location each count-tracked ledger entry changed (NULL for unit-tracked SKUs, whose
-- units carry their own location): the audit proves conservation per location with it.
ALTER TABLE ledger ADD COLUMN location text;
UPDATE ledger l SET location = 'default'
  FROM skus s WHERE s.tenant = l.tenant AND s.sku = l.sku AND s.tracking = 'count';
