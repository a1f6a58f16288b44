-- A queue may drop its completed jobs: `keep_completed = 0` deletes a job in the write that
-- completes it (as on PostgreSQL, V24). Claims take the limited path only when the queue is
-- paused or limited, not for this setting alone.
ALTER TABLE queue_settings ADD COLUMN keep_completed INTEGER NOT NULL DEFAULT 1;
