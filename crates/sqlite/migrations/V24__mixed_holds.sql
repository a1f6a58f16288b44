-- A hold of several kinds (`POST /v1/holds` with stock lines and unit lines: issue 57) is
-- `mixed`. SQLite cannot change a CHECK constraint, so the table is made again (as V7 did),
-- with its indexes and its trigger.
CREATE TABLE holds_v24 (
    tenant         TEXT NOT NULL,
    id             TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('stock', 'units', 'mixed')),
    status         TEXT NOT NULL CHECK (status IN ('held', 'confirmed', 'released', 'expired')),
    strategy       TEXT NOT NULL,
    lines          TEXT NOT NULL,
    expires_at_us  INTEGER NOT NULL,
    created_at_us  INTEGER NOT NULL,
    finished_at_us INTEGER,
    extended_at_us INTEGER,
    PRIMARY KEY (tenant, id)
);
INSERT INTO holds_v24 (tenant, id, kind, status, strategy, lines, expires_at_us, created_at_us, finished_at_us,
                       extended_at_us)
SELECT tenant, id, kind, status, strategy, lines, expires_at_us, created_at_us, finished_at_us, extended_at_us
  FROM holds;
DROP TABLE holds;
ALTER TABLE holds_v24 RENAME TO holds;
CREATE INDEX holds_active_expiry ON holds (expires_at_us) WHERE status = 'held';
CREATE INDEX holds_tenant_expiry ON holds (tenant, expires_at_us, id);
CREATE TRIGGER hold_extended AFTER UPDATE OF extended_at_us ON holds
    WHEN NEW.extended_at_us IS NOT OLD.extended_at_us BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'hold.extended', NEW.id,
            json_object('id', NEW.id, 'expires_at', strftime('%Y-%m-%dT%H:%M:%S', NEW.expires_at_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.expires_at_us % 1000000)), NEW.extended_at_us);
END;
