-- Tenants (issue 16): every object belongs to the tenant of the key that made it, and the
-- tenant is the leading column of every key and hot index, so it can become the distribution
-- column of a sharded PostgreSQL (Citus) with the partition keys (sku, resource, queue) second.
-- Existing rows go to the tenant `default` (the tenant of a server without keys); the column
-- then loses its default, so a statement that forgets the tenant fails instead of writing
-- into `default`.
ALTER TABLE skus ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE stock ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE ledger ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE allocations ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE idempotency_keys ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE holds ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE hold_lines ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE units ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE bookings ADD COLUMN tenant text NOT NULL DEFAULT 'default';
ALTER TABLE jobs ADD COLUMN tenant text NOT NULL DEFAULT 'default';

ALTER TABLE skus ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE stock ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE ledger ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE allocations ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE idempotency_keys ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE holds ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE hold_lines ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE units ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE bookings ALTER COLUMN tenant DROP DEFAULT;
ALTER TABLE jobs ALTER COLUMN tenant DROP DEFAULT;

-- Keys: (tenant, …) everywhere.
ALTER TABLE skus DROP CONSTRAINT skus_pkey, ADD PRIMARY KEY (tenant, sku);
ALTER TABLE stock DROP CONSTRAINT stock_pkey, ADD PRIMARY KEY (tenant, sku, bucket);
ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD PRIMARY KEY (tenant, sku, id);
ALTER TABLE allocations DROP CONSTRAINT allocations_pkey, ADD PRIMARY KEY (tenant, id);
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey, ADD PRIMARY KEY (tenant, key);
-- The pruning of old keys, across tenants.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
ALTER TABLE holds DROP CONSTRAINT holds_pkey, ADD PRIMARY KEY (tenant, id);
ALTER TABLE hold_lines DROP CONSTRAINT hold_lines_pkey, ADD PRIMARY KEY (tenant, hold_id, sku, bucket);
-- Overdue holds on one SKU (a writer that found it short).
CREATE INDEX hold_lines_sku ON hold_lines (tenant, sku);

ALTER TABLE units DROP CONSTRAINT units_pkey, ADD PRIMARY KEY (tenant, id);
ALTER TABLE units DROP CONSTRAINT units_sku_serial_key, ADD UNIQUE (tenant, sku, serial);
DROP INDEX units_available_id;
DROP INDEX units_available_received;
DROP INDEX units_available_expiry;
DROP INDEX units_claim;
DROP INDEX units_sku_status;
CREATE INDEX units_available_id ON units (tenant, sku, id) WHERE status = 'available';
CREATE INDEX units_available_received ON units (tenant, sku, received_at NULLS FIRST, location NULLS FIRST, id)
    WHERE status = 'available';
CREATE INDEX units_available_expiry ON units (tenant, sku, expires_at NULLS FIRST, id) WHERE status = 'available';
CREATE INDEX units_claim ON units (tenant, claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX units_sku_status ON units (tenant, sku, status);

ALTER TABLE bookings DROP CONSTRAINT bookings_pkey, ADD PRIMARY KEY (tenant, id);
ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;
ALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap
    EXCLUDE USING gist (tenant WITH =, resource WITH =, during WITH &&)
    WHERE (status IN ('confirmed', 'held') AND strategy <> 'naive');
DROP INDEX bookings_resource_during;
CREATE INDEX bookings_resource_during ON bookings USING gist (tenant, resource, during);

ALTER TABLE jobs DROP CONSTRAINT jobs_pkey, ADD PRIMARY KEY (tenant, id);
DROP INDEX jobs_fetch;
DROP INDEX jobs_unique;
DROP INDEX jobs_queue_state;
CREATE INDEX jobs_fetch ON jobs (tenant, queue, priority, run_at, id) WHERE state IN ('available', 'scheduled', 'retryable');
CREATE UNIQUE INDEX jobs_unique ON jobs (tenant, queue, unique_key)
    WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled');
CREATE INDEX jobs_queue_state ON jobs (tenant, queue, state);
