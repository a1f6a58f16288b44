-- Fencing tokens of the `redis_lock` strategy: the newest token that has written to the SKU.
-- A write carrying a token not newer than this one comes from a holder whose lock lapsed
-- (it paused past the TTL and another holder took the lock since) and is refused.
ALTER TABLE skus ADD COLUMN fence bigint NOT NULL DEFAULT 0;
