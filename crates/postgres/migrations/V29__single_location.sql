-- Whether a stock row's SKU is stocked at this row's location only (issue 28). `atomic`'s
-- single statement may take from a SKU only when the SKU has no row at another location;
-- it proved that with two index probes of `stock_location` inside the window the row is
-- locked (pgbench, 10 000 SKUs, 64 clients, seven alternating pairs: a mean 2 692 tps with
-- the probes, 2 856 with this flag). The flag is on the row the statement updates, so the
-- proof costs no read, and the UPDATE re-reads it on the newest version when it waited.
--
-- True only where known: rows that exist now, set below from the rows themselves, and the
-- rows a SKU is created with (its one location). A row inserted any other way gets false.
-- Rows at a second location clear the flag on every row of the SKU, whoever inserted them
-- (so also an instance that does not know the column, during a rolling upgrade): the
-- trigger below, which locks the rows it clears in (sku, bucket) order, the order of every
-- writer of several rows of a SKU. A row that does not say it sends the SKU to the general
-- path, which is always right, only slower: the single statement answers a refusal itself
-- only for one row that says it.
ALTER TABLE stock ADD COLUMN single_location boolean NOT NULL DEFAULT true;
ALTER TABLE stock ALTER COLUMN single_location SET DEFAULT false;
UPDATE stock s SET single_location = false
 WHERE EXISTS (SELECT 1 FROM stock o WHERE o.tenant = s.tenant AND o.sku = s.sku AND o.location <> s.location);

CREATE FUNCTION allot_stock_shared() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stock s SET single_location = false
      FROM (SELECT o.tenant, o.sku, o.bucket FROM stock o
              JOIN (SELECT DISTINCT tenant, sku FROM fresh) f ON o.tenant = f.tenant AND o.sku = f.sku
             WHERE o.single_location
               AND EXISTS (SELECT 1 FROM stock x WHERE x.tenant = o.tenant AND x.sku = o.sku AND x.location <> o.location)
             ORDER BY o.tenant, o.sku, o.bucket FOR UPDATE OF o) l
     WHERE s.tenant = l.tenant AND s.sku = l.sku AND s.bucket = l.bucket;
    RETURN NULL;
END $$;
CREATE TRIGGER stock_shared AFTER INSERT ON stock REFERENCING NEW TABLE AS fresh
    FOR EACH STATEMENT EXECUTE FUNCTION allot_stock_shared();
