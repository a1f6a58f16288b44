-- The W3C traceparent of the request that enqueued a job (NULL when traces were off), so
-- each run of the job continues that trace.
ALTER TABLE jobs ADD COLUMN traceparent TEXT;
