-- Why an endpoint's last delivery attempt failed, in words (NULL after a delivered one), as
-- on PostgreSQL (V30).
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
