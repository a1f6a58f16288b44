-- A statement may write its own ledger marks (issue 28). `ledger_events` (V16) marks every
-- statement that inserts ledger entries through a PL/pgSQL function over a transition table:
-- on `atomic`'s single statement spread over 10 000 SKUs, that trigger took about a seventh
-- of the statement's throughput in PostgreSQL (without it, a sixth more) (pgbench, 64 clients, prepared, alternating: 6 230
-- to 6 770 tps with it, 7 500 to 7 700 with the statement writing its own mark; 7 300 to
-- 8 100 with the trigger disabled and no mark at all).
--
-- A statement that writes the marks of its own entries (the same columns the trigger would:
-- tenant, SKU, first and last id, transaction, time of the first) sets the transaction-local
-- setting `allot.ledger_marked` to its own transaction's id (`set_config(…, true)`,
-- PostgreSQL docs 9.27.1 "Configuration Settings Functions") from the same rows, before its
-- ledger insert ends. The executor evaluates an AFTER STATEMENT trigger's WHEN as the insert
-- ends, when it decides whether to queue the trigger's event; the setting then names this
-- transaction, so the trigger does not fire. Only the current transaction's id skips it: a
-- value set for a role, a database or a session (or left by an earlier transaction) never
-- matches. The setting ends with the transaction, so only a statement alone in its
-- transaction (autocommit) may set it: any other ledger insert is marked by the trigger as
-- before. A statement that inserted no entries may or may not have set it; with no entries
-- there is nothing to mark either way.
DROP TRIGGER ledger_events ON ledger;
CREATE TRIGGER ledger_events AFTER INSERT ON ledger REFERENCING NEW TABLE AS fresh
    FOR EACH STATEMENT
    WHEN (current_setting('allot.ledger_marked', true) IS DISTINCT FROM pg_current_xact_id()::text)
    EXECUTE FUNCTION allot_ledger_mark();
