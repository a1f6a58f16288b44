-- Per-slot events of capacity. `slots`: the slots a booking on a resource with slots takes,
-- as its `booking.*` events carry them (`[{"start","end"}]`, written by the capacity path;
-- NULL for any other booking). `slots_sold_out`: the slots announced `resource.sold_out` and
-- not yet `resource.back_in_stock` — the level each writer compares a slot's fill with, under
-- the resource's lock, so each edge is announced once (allot_core::booking::fill).
ALTER TABLE bookings ADD COLUMN slots json;

CREATE TABLE slots_sold_out (
    tenant     text NOT NULL,
    resource   text NOT NULL,
    slot_start timestamptz NOT NULL,
    PRIMARY KEY (tenant, resource, slot_start)
);

-- json_strip_nulls drops `slots` and `from` where they are NULL (no other value of these
-- documents is ever NULL).
CREATE OR REPLACE FUNCTION allot_booking_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status;
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant,
            CASE WHEN TG_OP = 'INSERT' THEN 'booking.created'
                 WHEN NOT moved THEN 'booking.' || NEW.status
                 ELSE 'booking.rescheduled' END,
            NEW.id,
            json_strip_nulls(json_build_object(
                'id', NEW.id, 'resource', NEW.resource, 'start', allot_instant(lower(NEW.during)),
                'end', allot_instant(upper(NEW.during)), 'holder', NEW.holder, 'status', NEW.status,
                'quantity', NEW.quantity, 'slots', NEW.slots,
                'from', CASE WHEN moved THEN
                            json_build_object('start', allot_instant(lower(OLD.during)),
                                              'end', allot_instant(upper(OLD.during)), 'quantity', OLD.quantity)
                        END)),
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at
                 WHEN NOT moved THEN NEW.status_at
                 ELSE NEW.rescheduled_at END);
    RETURN NULL;
END $$;
