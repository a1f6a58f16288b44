-- Cheaper bookings (issue 28). A booking's insert paid for two GiST entries keyed by text
-- (tenant, resource, during), through btree_gist's text support: on a table of 31 000
-- bookings without its event trigger or its second GiST index, inserting 64 took 10.8 ms with
-- the exclusion constraint against 1.7 ms without it, and most of that was comparing and
-- penalising the text keys. Both GiST indexes now lead with one bigint instead, a hash of
-- (tenant, resource): the same 64 inserts took 3.6 ms with the constraint on the hash.
--
-- Exactness: one resource always has one hash, so the constraint still refuses every overlap
-- on a resource. Two resources whose 64-bit hashes are equal (hashtextextended, the hash of
-- PostgreSQL's hash partitioning, stable across versions: about one chance in 2^64 per pair)
-- would also exclude each other: a refusal that should not have been, never an overlap.
-- Every query that reads bookings by resource says both the hash (for the index) and the
-- tenant and resource themselves (for the answer). The body names pg_catalog's function and
-- gives the seed as bigint, so no function of that name on a search_path can stand in for it
-- (a `SET search_path` clause would stop the planner inlining it).
--
-- Upgrading rewrites `bookings` (the stored column) and rebuilds both GiST indexes under the
-- migration's lock, as V9 did.
CREATE FUNCTION allot_resource_hash(tenant text, resource text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT pg_catalog.hashtextextended(resource, pg_catalog.hashtextextended(tenant, 0::bigint)) $$;

ALTER TABLE bookings ADD COLUMN resource_hash bigint
    GENERATED ALWAYS AS (allot_resource_hash(tenant, resource)) STORED;
ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;
ALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap
    EXCLUDE USING gist (resource_hash WITH =, during WITH &&)
    WHERE (status IN ('confirmed', 'held') AND strategy <> 'naive');
DROP INDEX bookings_resource_during;
CREATE INDEX bookings_resource_during ON bookings USING gist (resource_hash, during);

-- The events' instants (V16) were written by a function declared IMMUTABLE around to_char,
-- which is STABLE: PostgreSQL inlines a SQL function only when its body is no more volatile
-- than it says (src/backend/optimizer/util/clauses.c, inline_function), so every booking's
-- event ran two nested SQL function calls. As STABLE it is inlined: 64 bookings inserted in
-- 10.8-12.2 ms against 13.6-15.5 ms, their events included (a table with the exclusion
-- constraint and the trigger, without the second GiST index; 10.1 ms without the trigger).
ALTER FUNCTION allot_instant(timestamptz) STABLE;
