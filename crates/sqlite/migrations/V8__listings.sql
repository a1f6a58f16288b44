-- Cursor listings (issue 18): a tenant's holds expiring soonest first, its allocations
-- oldest first.
CREATE INDEX holds_tenant_expiry ON holds (tenant, expires_at_us, id);
CREATE INDEX allocations_tenant_created ON allocations (tenant, created_at_us, id);
