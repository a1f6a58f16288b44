-- Fair claiming (issue 59): a queue with `fair_by = 'partition_key'` is claimed round-robin
-- across the groups of its runnable jobs (a group: a partition_key; the jobs without one
-- form the group ''), weighted by `fair_weights` (JSON {"key": jobs per turn}, 1 when
-- absent), with a turn that outlives a claim: `fair_cursor` is the group visited last and
-- `fair_served` what its turn has taken. The rules are allot_core::job::fair's.
ALTER TABLE queue_settings ADD COLUMN fair_by TEXT CHECK (fair_by IN ('partition_key'));
ALTER TABLE queue_settings ADD COLUMN fair_weights TEXT NOT NULL DEFAULT '{}';
ALTER TABLE queue_settings ADD COLUMN fair_cursor TEXT;
ALTER TABLE queue_settings ADD COLUMN fair_served INTEGER NOT NULL DEFAULT 0;

-- A queue's waiting jobs by group (BINARY: byte order), then as a claim takes them.
CREATE INDEX jobs_fair ON jobs (tenant, queue, coalesce(partition_key, ''), priority, run_at_us, id)
    WHERE state IN ('available', 'scheduled', 'retryable');
