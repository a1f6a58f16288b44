-- API keys (issue 16): stored by the SHA-256 of the secret, never the secret.
CREATE TABLE api_keys (
    id            text PRIMARY KEY,
    tenant        text NOT NULL,
    name          text NOT NULL,
    scopes        text[] NOT NULL CHECK (cardinality(scopes) >= 1),
    prefix        text NOT NULL,
    secret_sha256 text NOT NULL UNIQUE,
    rate_per_s    integer CHECK (rate_per_s IS NULL OR rate_per_s >= 1),
    created_at    timestamptz NOT NULL,
    revoked_at    timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant, created_at DESC);
