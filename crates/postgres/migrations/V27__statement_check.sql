-- A check a statement makes of its own work (issue 28). A batch that sends its last
-- statement together with `COMMIT` (one round trip instead of two) cannot look at what the
-- statement did before the commit; where it must not commit unless the statement did exactly
-- what it planned, the statement checks itself: `allot_check(ok, what)` is true, or raises
-- `internal_error` (XX000) naming `what`, which fails the statement and so the transaction,
-- and nothing of it is applied. VOLATILE (the default), so PostgreSQL evaluates it where it
-- stands rather than folding it away.
--
-- First user: a batch of `batched` unit claims, whose write marks the units its pick locked
-- and writes the ledger and the allocations for them; it checks that it marked every one.
CREATE FUNCTION allot_check(ok boolean, what text) RETURNS boolean
    LANGUAGE plpgsql
AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'allot: %', what USING ERRCODE = 'XX000';
    END IF;
    RETURN true;
END
$$;
