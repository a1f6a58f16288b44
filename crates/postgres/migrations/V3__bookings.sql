-- Bookings (PostgreSQL). btree_gist gives text its `=` in a GiST index, so one exclusion
-- constraint covers (resource, range). Created in `public` so dropping another schema that
-- runs allot (tests use one schema each) never drops it; migrations are serialised by an
-- advisory lock, so concurrent first starts do not race on it.
CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

CREATE TABLE bookings (
    id         text PRIMARY KEY,
    resource   text NOT NULL,
    during     tstzrange NOT NULL CHECK (NOT isempty(during) AND lower_inc(during) AND NOT upper_inc(during)),
    holder     text NOT NULL,
    metadata   jsonb,
    status     text NOT NULL CHECK (status IN ('confirmed', 'held', 'cancelled', 'released', 'expired')),
    strategy   text NOT NULL,
    expires_at timestamptz,
    created_at timestamptz NOT NULL,
    -- The guard of every safe strategy: no two blocking bookings of a resource overlap.
    -- `naive` bookings stay outside it on purpose, so the benchmark can show the race.
    CONSTRAINT bookings_no_overlap EXCLUDE USING gist (resource WITH =, during WITH &&)
        WHERE (status IN ('confirmed', 'held') AND strategy <> 'naive')
);
-- Lists, availability and the naive/advisory checks over any status.
CREATE INDEX bookings_resource_during ON bookings USING gist (resource, during);
CREATE INDEX bookings_held_expiry ON bookings (expires_at) WHERE status = 'held';
