-- The instances of `allot serve` on this database, by their heartbeats (for the overview).
CREATE TABLE instances (
    id         text PRIMARY KEY,
    version    text NOT NULL,
    started_at timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL
);
