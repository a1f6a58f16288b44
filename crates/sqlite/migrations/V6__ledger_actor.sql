-- Who made each ledger change (issue 16): the API key's id; NULL for a server without keys
-- and for the server's own changes (expiry).
ALTER TABLE ledger ADD COLUMN actor TEXT;
