-- The W3C traceparent of the request that enqueued a job (NULL when traces were off), so
-- each run of the job continues that trace (OpenTelemetry; issue: traces through jobs).
ALTER TABLE jobs ADD COLUMN traceparent text;
