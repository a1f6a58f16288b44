-- A queue may drop its completed jobs (issue 28): `keep_completed = false` deletes a job in
-- the statement that completes it, as graphile-worker and Que always do (BullMQ's
-- `removeOnComplete`). A completed job kept is a new row version with three index entries
-- (primary key, jobs_queue_state, jobs_finalized); a deleted one only marks its version dead.
ALTER TABLE queue_settings
    ADD COLUMN keep_completed boolean NOT NULL DEFAULT true,
    -- Whether claims of the queue go through allot_claim_limited (paused or limited). A
    -- queue whose only setting is `keep_completed = false` keeps the plain claim.
    ADD COLUMN gates_claims boolean GENERATED ALWAYS AS (
        paused OR max_running IS NOT NULL OR max_running_per_key IS NOT NULL
        OR rate_per_window IS NOT NULL OR fifo_per_key) STORED;
