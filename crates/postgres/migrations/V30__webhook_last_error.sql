-- Why an endpoint's last delivery attempt failed, in words (NULL after a delivered one):
-- what its owner reads before asking "did you send it?".
ALTER TABLE webhooks ADD COLUMN last_error text;
