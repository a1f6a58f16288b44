-- Webhooks (issue 26): endpoints per tenant, and how far each tenant's feed has been handed
-- to their deliveries. A delivery is a job of the internal tenant `allot/webhooks` (a name no
-- client tenant can have: names hold no `/`), so it has the queue's leases, retries and dead
-- letters, and no tenant's worker can claim it.
CREATE TABLE webhooks (
    tenant     text NOT NULL,
    id         text NOT NULL,
    url        text NOT NULL,
    types      jsonb NOT NULL,
    secret     bytea NOT NULL,
    -- A rotated-out secret signs next to the new one until `old_until`.
    old_secret bytea,
    old_until  timestamptz,
    status     text NOT NULL CHECK (status IN ('enabled', 'disabled')),
    created_at timestamptz NOT NULL,
    -- It receives the events after this cursor (the tenant's highest when it was made).
    after_cursor bigint NOT NULL,
    -- Its health: how the delivery attempts went (`record_attempt`).
    last_attempt_at      timestamptz,
    last_status          integer,
    last_success_at      timestamptz,
    consecutive_failures bigint NOT NULL DEFAULT 0,
    failing_since        timestamptz,
    PRIMARY KEY (tenant, id)
);

CREATE TABLE webhook_dispatch (
    tenant text PRIMARY KEY,
    last   bigint NOT NULL
);
