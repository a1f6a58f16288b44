-- API keys (issue 16): stored by the SHA-256 of the secret, never the secret. Scopes are a
-- JSON array of names; times are UTC microseconds.
CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    tenant        TEXT NOT NULL,
    name          TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    prefix        TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL UNIQUE,
    rate_per_s    INTEGER CHECK (rate_per_s IS NULL OR rate_per_s >= 1),
    created_at_us INTEGER NOT NULL,
    revoked_at_us INTEGER
);
CREATE INDEX api_keys_tenant ON api_keys (tenant, created_at_us DESC);
