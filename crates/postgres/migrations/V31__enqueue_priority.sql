-- allot.enqueue refuses a bad priority as it refuses every other bad value: 22023
-- (invalid_parameter_value) with a message naming the parameter, before any insert. V18's
-- function let the jobs table's CHECK refuse it (23514, check_violation, with the whole
-- INSERT as its context) and a NULL priority reach the NOT NULL constraint (23502). The
-- function is otherwise V18's, replaced in the schema V18 made for it.
DO $do$
DECLARE
    target text := CASE current_schema() WHEN 'public' THEN 'allot' ELSE current_schema() || '_allot' END;
BEGIN
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', target);
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION %I.enqueue(
    queue text, payload jsonb DEFAULT '{}', priority integer DEFAULT 1, run_at timestamptz DEFAULT NULL,
    max_attempts integer DEFAULT 25, unique_key text DEFAULT NULL, partition_key text DEFAULT NULL,
    tags text[] DEFAULT '{}', metadata jsonb DEFAULT '{}', tenant text DEFAULT 'default')
RETURNS bigint LANGUAGE plpgsql SET search_path FROM CURRENT AS $body$
#variable_conflict use_column
DECLARE
    new_id bigint;
    at timestamptz := coalesce(enqueue.run_at, now());
BEGIN
    IF enqueue.queue IS NULL OR enqueue.queue !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'allot.enqueue: queue must be 1..=128 chars of A-Z a-z 0-9 . _ : -'
            USING ERRCODE = '22023';
    END IF;
    IF enqueue.tenant IS NULL OR enqueue.tenant !~ '^[A-Za-z0-9._:-]{1,128}$' THEN
        RAISE EXCEPTION 'allot.enqueue: tenant must be 1..=128 chars of A-Z a-z 0-9 . _ : -'
            USING ERRCODE = '22023';
    END IF;
    IF enqueue.metadata IS NULL OR jsonb_typeof(enqueue.metadata) <> 'object' THEN
        RAISE EXCEPTION 'allot.enqueue: metadata must be a JSON object' USING ERRCODE = '22023';
    END IF;
    IF enqueue.priority IS NULL OR enqueue.priority NOT BETWEEN 1 AND 4 THEN
        RAISE EXCEPTION 'allot.enqueue: priority must be 1..=4 (1 runs first)' USING ERRCODE = '22023';
    END IF;
    IF enqueue.max_attempts IS NULL OR enqueue.max_attempts NOT BETWEEN 1 AND 100 THEN
        RAISE EXCEPTION 'allot.enqueue: max_attempts must be 1..=100' USING ERRCODE = '22023';
    END IF;
    IF length(enqueue.unique_key) NOT BETWEEN 1 AND 256 OR length(enqueue.partition_key) NOT BETWEEN 1 AND 256 THEN
        RAISE EXCEPTION 'allot.enqueue: unique_key and partition_key must be 1..=256 chars' USING ERRCODE = '22023';
    END IF;
    IF cardinality(enqueue.tags) > 16 OR EXISTS (SELECT 1 FROM unnest(enqueue.tags) t WHERE length(t) NOT BETWEEN 1 AND 256)
       OR array_position(enqueue.tags, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'allot.enqueue: at most 16 tags of 1..=256 chars' USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue.payload::text) > 65536 OR octet_length(enqueue.metadata::text) > 16384 THEN
        RAISE EXCEPTION 'allot.enqueue: payload at most 64 KiB, metadata at most 16 KiB' USING ERRCODE = '22023';
    END IF;
    -- A unique key whose holder finishes between the insert and the read is inserted again.
    FOR try_n IN 1..3 LOOP
        INSERT INTO jobs AS j (tenant, queue, state, priority, payload, run_at, max_attempts, unique_key,
                               partition_key, tags, metadata, created_at)
        VALUES (enqueue.tenant, enqueue.queue, CASE WHEN at > now() THEN 'scheduled' ELSE 'available' END,
                enqueue.priority, coalesce(enqueue.payload, 'null')::json, at, enqueue.max_attempts,
                enqueue.unique_key, enqueue.partition_key, coalesce(enqueue.tags, '{}'), enqueue.metadata::json, now())
        ON CONFLICT (tenant, queue, unique_key)
           WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled')
        DO NOTHING RETURNING j.id INTO new_id;
        IF new_id IS NOT NULL THEN
            PERFORM pg_notify('allot_jobs', enqueue.tenant || '/' || enqueue.queue);
            RETURN new_id;
        END IF;
        SELECT j.id INTO new_id FROM jobs j
         WHERE j.tenant = enqueue.tenant AND j.queue = enqueue.queue AND j.unique_key = enqueue.unique_key
           AND j.state NOT IN ('completed', 'discarded', 'cancelled');
        IF new_id IS NOT NULL THEN
            RETURN new_id;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'allot.enqueue: the unique_key''s job kept changing; run the transaction again'
        USING ERRCODE = '40001';
END;
$body$$f$, target);
END;
$do$;
