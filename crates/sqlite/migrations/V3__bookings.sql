-- Bookings (SQLite): half-open [start_us, end_us) in UTC microseconds. One writer thread
-- serialises check-and-insert, so no constraint is needed for correctness.
CREATE TABLE bookings (
    id            TEXT PRIMARY KEY,
    resource      TEXT NOT NULL,
    start_us      INTEGER NOT NULL,
    end_us        INTEGER NOT NULL CHECK (end_us > start_us),
    holder        TEXT NOT NULL,
    metadata      TEXT,
    status        TEXT NOT NULL CHECK (status IN ('confirmed', 'held', 'cancelled', 'released', 'expired')),
    strategy      TEXT NOT NULL,
    expires_at_us INTEGER,
    created_at_us INTEGER NOT NULL
);
CREATE INDEX bookings_resource_start ON bookings (resource, start_us);
CREATE INDEX bookings_held_expiry ON bookings (expires_at_us) WHERE status = 'held';
