-- The textbook booking transaction allot's `exclusion` is compared with: an advisory lock on
-- the resource, check for an overlapping blocking booking, insert when there is none. The check
-- reads the resource's bookings through their GiST index, keyed by the hash of (tenant,
-- resource) since V26, as allot's own reads do.
-- 100 resources, random 3-day ranges starting on one of 3650 days from 2030-01-01. Run with
--   pgbench -n -c 64 -j 2 -T 15 -D prefix="'pgb-'" -f bookings_advisory.sql DB
\set r random(0, 99)
\set d random(0, 3649)
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended(:prefix || :r, 0));
SELECT count(*) AS n FROM bookings
 WHERE resource_hash = allot_resource_hash('default', :prefix || :r)
   AND tenant = 'default' AND resource = :prefix || :r AND status IN ('confirmed', 'held')
   AND during && tstzrange(timestamptz '2030-01-01' + :d * interval '1 day',
                           timestamptz '2030-01-01' + (:d + 3) * interval '1 day', '[)') \gset
\if :n = 0
INSERT INTO bookings (tenant, id, resource, during, holder, status, strategy, created_at)
VALUES ('default', gen_random_uuid()::text, :prefix || :r,
        tstzrange(timestamptz '2030-01-01' + :d * interval '1 day',
                  timestamptz '2030-01-01' + (:d + 3) * interval '1 day', '[)'),
        'pgbench', 'confirmed', 'advisory', now());
\endif
END;
