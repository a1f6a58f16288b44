-- The textbook placement by priority on one SKU stocked at several locations: one relative,
-- conditional UPDATE per request on the first location row (in priority order) that has the
-- whole line (what `atomic` does with `"placement": "priority"`, without ledger or allocation
-- rows, without splits).
--   pgbench -n -c 64 -j 2 -T 10 -D sku="'S'" -f bench/pgbench/locations.sql DB_URL
\set q random(1, 3)
UPDATE stock SET on_hand = on_hand - :q, version = version + 1
 WHERE tenant = 'default' AND sku = :sku AND on_hand - held >= :q AND bucket = (
     SELECT s.bucket FROM stock s
       LEFT JOIN locations l ON l.tenant = s.tenant AND l.location = s.location
      WHERE s.tenant = 'default' AND s.sku = :sku AND s.on_hand - s.held >= :q
      ORDER BY COALESCE(l.priority, 0), s.location, s.bucket LIMIT 1);
