-- A queue's jobs of one state by id (the console's dead letters, a bulk action's pick): the
-- old index ordered them by rowid, so a listing by id walked every job of the tenant instead.
CREATE INDEX jobs_queue_state_id ON jobs (tenant, queue, state, id);
DROP INDEX jobs_queue_state;
