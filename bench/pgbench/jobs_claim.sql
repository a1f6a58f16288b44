-- The textbook single-job claim allot's `skip_locked` claims are compared with: one UPDATE of
-- the best runnable job picked with FOR UPDATE SKIP LOCKED, in the default tenant (as allot's
-- claims without keys). Run with
--   pgbench -n -c 64 -j 2 -T 15 -D queue="'Q'" -f jobs_claim.sql DB
UPDATE jobs SET state = 'running', attempt = attempt + 1, lease_token = gen_random_uuid()::text,
       lease_expires_at = now() + interval '10 minutes', attempted_at = now()
 WHERE tenant = 'default'
   AND id = (SELECT id FROM jobs
              WHERE tenant = 'default' AND queue = :queue AND state IN ('available', 'scheduled', 'retryable') AND run_at <= now()
              ORDER BY priority, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, payload, attempt, lease_token;
