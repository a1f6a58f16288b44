-- Capacity (bookings beyond capacity 1): resources and pools that were put, their members,
-- per-slot capacities, and a quantity on every booking. A resource never put keeps the
-- exclusion path (capacity 1, no slots). A booking on a resource with slots (`slotted`)
-- stands outside the exclusion constraint: it is decided under the transaction-scoped
-- advisory locks of the resource and of each pool it is in, taken in one global key order,
-- on the sum of the blocking bookings of every slot it touches (a held one stops counting
-- the instant it expires).
ALTER TABLE bookings ADD COLUMN quantity integer NOT NULL DEFAULT 1 CHECK (quantity >= 1);
ALTER TABLE bookings ADD COLUMN slotted boolean NOT NULL DEFAULT false;
-- Decided by the capacity path (a put resource's), under its locks.
ALTER TABLE bookings ADD COLUMN counted boolean NOT NULL DEFAULT false;
-- When a reschedule last moved it (the audit: a booking moved or made after a capacity was
-- lowered must fit the lowered capacity).
ALTER TABLE bookings ADD COLUMN rescheduled_at timestamptz;
ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;
ALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap
    EXCLUDE USING gist (resource_hash WITH =, during WITH &&)
    WHERE (status IN ('confirmed', 'held') AND strategy <> 'naive' AND NOT slotted);

CREATE TABLE resources (
    tenant     text NOT NULL,
    resource   text NOT NULL,
    config     jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, resource)
);

CREATE TABLE pools (
    tenant     text NOT NULL,
    pool       text NOT NULL,
    config     jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, pool)
);

CREATE TABLE resource_pools (
    tenant   text NOT NULL,
    pool     text NOT NULL,
    resource text NOT NULL,
    PRIMARY KEY (tenant, pool, resource)
);

CREATE TABLE slot_capacity (
    tenant     text NOT NULL,
    resource   text NOT NULL,
    slot_start timestamptz NOT NULL,
    capacity   integer NOT NULL CHECK (capacity >= 0),
    changed_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, resource, slot_start)
);

-- A booking decided the plain way (the exclusion constraint, under the resource's lock) on a
-- resource that was put is refused with SQLSTATE AL001, and the store decides it again by
-- capacity: the `exclusion` insert asks `NOT EXISTS` a configuration in its own statement,
-- whose snapshot is taken before it waits for the resource's lock, so a put committed while
-- it waited is seen only here (a VOLATILE function's query takes a snapshot of its own,
-- after the lock). Costs one primary-key probe of `resources` per plain insert.
CREATE FUNCTION allot_booking_put_check() RETURNS trigger LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM resources WHERE tenant = NEW.tenant AND resource = NEW.resource) THEN
        RAISE EXCEPTION 'resource % was put: decided by capacity', NEW.resource USING ERRCODE = 'AL001';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER booking_put_check BEFORE INSERT ON bookings FOR EACH ROW
    WHEN (NOT NEW.counted AND NEW.strategy <> 'naive') EXECUTE FUNCTION allot_booking_put_check();

-- Booking events carry the quantity; a reschedule is an event of its own, with the old
-- range and quantity in `from`.
CREATE OR REPLACE FUNCTION allot_booking_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (tenant, type, object, data, at)
    VALUES (NEW.tenant,
            CASE WHEN TG_OP = 'INSERT' THEN 'booking.created'
                 WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'booking.' || NEW.status
                 ELSE 'booking.rescheduled' END,
            NEW.id,
            CASE WHEN TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
                json_build_object('id', NEW.id, 'resource', NEW.resource, 'start', allot_instant(lower(NEW.during)),
                                  'end', allot_instant(upper(NEW.during)), 'holder', NEW.holder, 'status', NEW.status,
                                  'quantity', NEW.quantity,
                                  'from', json_build_object('start', allot_instant(lower(OLD.during)),
                                                            'end', allot_instant(upper(OLD.during)), 'quantity', OLD.quantity))
            ELSE
                json_build_object('id', NEW.id, 'resource', NEW.resource, 'start', allot_instant(lower(NEW.during)),
                                  'end', allot_instant(upper(NEW.during)), 'holder', NEW.holder, 'status', NEW.status,
                                  'quantity', NEW.quantity)
            END,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at
                 WHEN NEW.status IS DISTINCT FROM OLD.status THEN NEW.status_at
                 ELSE NEW.rescheduled_at END);
    RETURN NULL;
END $$;
CREATE TRIGGER booking_rescheduled AFTER UPDATE OF rescheduled_at ON bookings FOR EACH ROW
    WHEN (NEW.rescheduled_at IS DISTINCT FROM OLD.rescheduled_at AND NEW.status IS NOT DISTINCT FROM OLD.status)
    EXECUTE FUNCTION allot_booking_events();
