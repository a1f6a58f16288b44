-- Whether a stock row's SKU is stocked at this row's location only (issue 28). `atomic`'s
-- single statement may take from a SKU only when the SKU has no row at another location;
-- it proved that with two index probes of `stock_location` inside the window the row is
-- locked, about a seventh of the statement (pgbench, 10 000 SKUs, 64 clients). The flag
-- is on the row the statement updates, so the proof costs no read at all.
--
-- True only where known: rows that exist now, set below from the rows themselves, and the
-- rows a SKU is created with (its one location). A row inserted any other way gets false, so
-- an instance that does not know the column (during a rolling upgrade) can only send a SKU
-- to the general path, never let the fast path take from a SKU of several locations. Making
-- rows at a second location sets every row of the SKU false in the same statement, under
-- the SKU row's lock (`location_rows::ensure_rows`); the fast path's UPDATE, waiting on a row
-- that statement changed, re-reads the flag (EvalPlanQual) and leaves the SKU to the general
-- path.
ALTER TABLE stock ADD COLUMN single_location boolean NOT NULL DEFAULT true;
ALTER TABLE stock ALTER COLUMN single_location SET DEFAULT false;
UPDATE stock s SET single_location = false
 WHERE EXISTS (SELECT 1 FROM stock o WHERE o.tenant = s.tenant AND o.sku = s.sku AND o.location <> s.location);
