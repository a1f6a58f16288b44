-- A hold of several kinds (`POST /v1/holds` with stock lines and unit lines: issue 57) is
-- `mixed`.
ALTER TABLE holds DROP CONSTRAINT holds_kind_check;
ALTER TABLE holds ADD CONSTRAINT holds_kind_check CHECK (kind IN ('stock', 'units', 'mixed'));
