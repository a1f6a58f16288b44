-- The textbook flash-sale allocation on one hot SKU: one conditional relative UPDATE per
-- transaction (what `atomic` does, without ledger or allocation rows).
--   pgbench -n -c 256 -j 2 -T 10 -D sku="'HOT'" -f bench/pgbench/hot_sku.sql DB_URL
UPDATE stock SET on_hand = on_hand - 1, version = version + 1
 WHERE tenant = 'default' AND sku = :sku AND bucket = 0 AND on_hand - held >= 1;
