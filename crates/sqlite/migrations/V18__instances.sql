-- The instances of `allot serve` on this database, by their heartbeats (for the overview).
CREATE TABLE instances (
    id            TEXT PRIMARY KEY,
    version       TEXT NOT NULL,
    started_at_us INTEGER NOT NULL,
    seen_at_us    INTEGER NOT NULL
) WITHOUT ROWID;
