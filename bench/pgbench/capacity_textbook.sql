-- The textbook capacity booking allot's capacity path is compared with: lock the slot rows of
-- the nights the stay touches (SELECT … FOR UPDATE, in night order), count what the blocking
-- bookings of those nights take, insert when every night has room. `capacity_slots` is this
-- script's own table (capacity_compare.sh makes it); the bookings go in allot's table, read
-- through its GiST index as allot's own reads do.
-- R resources, 1-night stays starting on one of D nights from 2030-01-01. Run with
--   pgbench -n -c 64 -j 2 -T 15 -D prefix="'pgb-'" -D resources=1 -D nights=1 -f capacity_textbook.sql DB
\set r random(0, :resources - 1)
\set d random(0, :nights - 1)
BEGIN;
SELECT capacity FROM capacity_slots
 WHERE resource = :prefix || :r AND night = date '2030-01-01' + :d FOR UPDATE \gset
SELECT coalesce(sum(quantity), 0) AS used FROM bookings
 WHERE resource_hash = allot_resource_hash('default', :prefix || :r)
   AND tenant = 'default' AND resource = :prefix || :r AND status IN ('confirmed', 'held')
   AND during && tstzrange(timestamptz '2030-01-01' + :d * interval '1 day',
                           timestamptz '2030-01-01' + (:d + 1) * interval '1 day', '[)') \gset
\if :used < :capacity
INSERT INTO bookings (tenant, id, resource, during, holder, status, strategy, created_at, quantity, slotted)
VALUES ('default', gen_random_uuid()::text, :prefix || :r,
        tstzrange(timestamptz '2030-01-01' + :d * interval '1 day',
                  timestamptz '2030-01-01' + (:d + 1) * interval '1 day', '[)'),
        'pgbench', 'confirmed', 'advisory', now(), 1, true);
\endif
END;
