-- Capacity (bookings beyond capacity 1): resources and pools that were put, their members,
-- per-slot capacities, and a quantity on every booking. A resource never put keeps the
-- plain path (capacity 1, no slots). The one writer thread serialises the read of a
-- resource's bookings, the decision and the insert, so no counter rows are needed: what a
-- slot has used is the sum of its blocking bookings, and a held booking stops counting the
-- instant it expires.
ALTER TABLE bookings ADD COLUMN quantity INTEGER NOT NULL DEFAULT 1 CHECK (quantity >= 1);
-- A booking of a resource with slots, counted against capacity (others never overlap).
ALTER TABLE bookings ADD COLUMN slotted INTEGER NOT NULL DEFAULT 0;
-- When a reschedule last moved it (the audit: a booking moved or made after a capacity was
-- lowered must fit the lowered capacity).
ALTER TABLE bookings ADD COLUMN rescheduled_at_us INTEGER;

CREATE TABLE resources (
    tenant        TEXT NOT NULL,
    resource      TEXT NOT NULL,
    config        TEXT NOT NULL,
    updated_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, resource)
) WITHOUT ROWID;

CREATE TABLE pools (
    tenant        TEXT NOT NULL,
    pool          TEXT NOT NULL,
    config        TEXT NOT NULL,
    updated_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, pool)
) WITHOUT ROWID;

CREATE TABLE resource_pools (
    tenant   TEXT NOT NULL,
    pool     TEXT NOT NULL,
    resource TEXT NOT NULL,
    PRIMARY KEY (tenant, pool, resource)
) WITHOUT ROWID;

CREATE TABLE slot_capacity (
    tenant        TEXT NOT NULL,
    resource      TEXT NOT NULL,
    slot_start_us INTEGER NOT NULL,
    capacity      INTEGER NOT NULL CHECK (capacity >= 0),
    changed_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, resource, slot_start_us)
) WITHOUT ROWID;

-- Booking events carry the quantity; a reschedule is an event of its own.
DROP TRIGGER booking_created;
DROP TRIGGER booking_status;
CREATE TRIGGER booking_created AFTER INSERT ON bookings BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.created', NEW.id,
            json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity),
            NEW.created_at_us);
END;
CREATE TRIGGER booking_status AFTER UPDATE OF status ON bookings WHEN NEW.status IS NOT OLD.status BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.' || NEW.status, NEW.id,
            json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity),
            NEW.status_at_us);
END;
CREATE TRIGGER booking_rescheduled AFTER UPDATE OF rescheduled_at_us ON bookings
    WHEN NEW.rescheduled_at_us IS NOT OLD.rescheduled_at_us BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.rescheduled', NEW.id,
            json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity,
                        'from', json_object('start', strftime('%Y-%m-%dT%H:%M:%S', OLD.start_us / 1000000, 'unixepoch') || printf('.%06dZ', OLD.start_us % 1000000),
                                            'end', strftime('%Y-%m-%dT%H:%M:%S', OLD.end_us / 1000000, 'unixepoch') || printf('.%06dZ', OLD.end_us % 1000000),
                                            'quantity', OLD.quantity)),
            NEW.rescheduled_at_us);
END;
