-- Booking lines in holds (issue 57): a `held` booking whose `hold_id` names the hold it is a
-- line of, with the hold's expiry; it is confirmed, released or expired with the hold
-- (engine/overdue.rs), extended with it, and refused by the booking endpoints.
ALTER TABLE bookings ADD COLUMN hold_id TEXT;
CREATE INDEX bookings_of_holds ON bookings (tenant, hold_id) WHERE hold_id IS NOT NULL;
