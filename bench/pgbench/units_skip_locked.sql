-- The textbook unit claim allot's `skip_locked` is compared with (issue: units perf figure):
-- one UPDATE … WHERE id IN (SELECT … ORDER BY … LIMIT 3 FOR UPDATE SKIP LOCKED) per
-- transaction, same order as allot's (NULL smallest, id as tie-breaker). Run with
--   pgbench -n -c 64 -j 2 -T 15 -D sku="'POOL'" -f units_skip_locked.sql DB
UPDATE units SET status = 'allocated', claim_id = 'pgbench-' || :client_id || '-' || random()
 WHERE tenant = 'default'
   AND id IN (SELECT id FROM units WHERE tenant = 'default' AND sku = :sku AND status = 'available'
               ORDER BY received_at ASC NULLS FIRST, location ASC NULLS FIRST, id ASC
               LIMIT 3 FOR UPDATE SKIP LOCKED);
