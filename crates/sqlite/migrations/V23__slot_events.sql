-- Per-slot events of capacity. `slots`: the slots a booking on a resource with slots takes,
-- as its `booking.*` events carry them (`[{"start","end"}]`, written by the capacity path;
-- NULL for any other booking). `slots_sold_out`: the slots announced `resource.sold_out` and
-- not yet `resource.back_in_stock` — the level each writer compares a slot's fill with in its
-- write transaction, so each edge is announced once (allot_core::booking::fill).
ALTER TABLE bookings ADD COLUMN slots TEXT;

CREATE TABLE slots_sold_out (
    tenant        TEXT NOT NULL,
    resource      TEXT NOT NULL,
    slot_start_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, resource, slot_start_us)
) WITHOUT ROWID;

DROP TRIGGER booking_created;
DROP TRIGGER booking_status;
DROP TRIGGER booking_rescheduled;
CREATE TRIGGER booking_created AFTER INSERT ON bookings BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.created', NEW.id,
            CASE WHEN NEW.slots IS NULL THEN json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity)
                 ELSE json_set(json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity), '$.slots', json(NEW.slots)) END,
            NEW.created_at_us);
END;
CREATE TRIGGER booking_status AFTER UPDATE OF status ON bookings WHEN NEW.status IS NOT OLD.status BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.' || NEW.status, NEW.id,
            CASE WHEN NEW.slots IS NULL THEN json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity)
                 ELSE json_set(json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity), '$.slots', json(NEW.slots)) END,
            NEW.status_at_us);
END;
CREATE TRIGGER booking_rescheduled AFTER UPDATE OF rescheduled_at_us ON bookings
    WHEN NEW.rescheduled_at_us IS NOT OLD.rescheduled_at_us BEGIN
    INSERT INTO events (tenant, type, object, data, at_us)
    VALUES (NEW.tenant, 'booking.rescheduled', NEW.id,
            json_set(CASE WHEN NEW.slots IS NULL THEN json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity)
                 ELSE json_set(json_object('id', NEW.id, 'resource', NEW.resource, 'start', strftime('%Y-%m-%dT%H:%M:%S', NEW.start_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.start_us % 1000000),
                        'end', strftime('%Y-%m-%dT%H:%M:%S', NEW.end_us / 1000000, 'unixepoch') || printf('.%06dZ', NEW.end_us % 1000000), 'holder', NEW.holder, 'status', NEW.status,
                        'quantity', NEW.quantity), '$.slots', json(NEW.slots)) END,
                     '$.from', json_object('start', strftime('%Y-%m-%dT%H:%M:%S', OLD.start_us / 1000000, 'unixepoch') || printf('.%06dZ', OLD.start_us % 1000000),
                                           'end', strftime('%Y-%m-%dT%H:%M:%S', OLD.end_us / 1000000, 'unixepoch') || printf('.%06dZ', OLD.end_us % 1000000),
                                           'quantity', OLD.quantity)),
            NEW.rescheduled_at_us);
END;
