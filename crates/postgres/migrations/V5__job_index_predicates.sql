-- Partial indexes whose predicate a by-id statement cannot imply.
--
-- With `WHERE state = 'running'` as its predicate, `jobs_lease` was a candidate for every
-- `UPDATE jobs … WHERE id = $1 AND state = 'running' AND lease_token = $2` (heartbeat,
-- complete, fail, batch completion). When the statistics were taken while no job was running
-- (autovacuum off, or a queue filled and analysed a moment ago) the planner believes the
-- index holds one row and scans all of it instead of the primary key: every transition then
-- reads every running job. A predicate on the indexed column itself is implied only by a
-- condition on that column (`lease_expires_at <= $1`, `finalized_at < $1`), which only the
-- rescue and the pruning have. `lease_expires_at` is set exactly while a job runs and
-- `finalized_at` exactly while it is finished (completed, discarded, cancelled).
DROP INDEX jobs_lease;
CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
DROP INDEX jobs_finalized;
CREATE INDEX jobs_finalized ON jobs (finalized_at) WHERE finalized_at IS NOT NULL;
