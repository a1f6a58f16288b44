-- One clock: every instant a row records comes from the store's clock (allot_core::Clock,
-- injectable in tests), bound by the statement that writes it, never from the database's
-- now(). Without a default, a statement that forgets one fails (23502 not_null_violation)
-- instead of silently taking the database's time.
ALTER TABLE skus ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE ledger ALTER COLUMN at DROP DEFAULT;
ALTER TABLE idempotency_keys ALTER COLUMN created_at DROP DEFAULT;
