-- Locations (issue 18), as on PostgreSQL: a SKU's stock rows each belong to a location and
-- keep their bucket number (unique per SKU); a location's rows are made when stock first
-- arrives there. SQLite cannot drop a column default without rebuilding the table, so
-- `stock.location` keeps DEFAULT 'default'; every statement names it all the same.
CREATE TABLE locations (
    tenant        TEXT NOT NULL,
    location      TEXT NOT NULL,
    priority      INTEGER NOT NULL,
    created_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, location)
);

ALTER TABLE stock ADD COLUMN location TEXT NOT NULL DEFAULT 'default';
CREATE INDEX stock_location ON stock (tenant, sku, location, bucket);

-- The location each count-tracked ledger entry changed (NULL for unit-tracked SKUs).
ALTER TABLE ledger ADD COLUMN location TEXT;
UPDATE ledger SET location = 'default'
 WHERE EXISTS (SELECT 1 FROM skus s WHERE s.tenant = ledger.tenant AND s.sku = ledger.sku AND s.tracking = 'count');
