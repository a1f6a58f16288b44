-- The textbook allocation spread over many SKUs: one conditional relative UPDATE per
-- transaction on a random SKU of :n named :prefix || 0 .. :prefix || (:n - 1) (what `atomic`
-- does, without ledger or allocation rows). Run with
--   pgbench -n -c 64 -j 2 -T 10 -D prefix="'S-'" -D n=10000 -f bench/pgbench/spread.sql DB_URL
\set i random(0, :n - 1)
UPDATE stock SET on_hand = on_hand - 1, version = version + 1
 WHERE tenant = 'default' AND sku = :prefix || :i AND bucket = 0 AND on_hand - held >= 1;
