-- Client documents are kept as the text allot wrote (issue 24): `json` keeps its input as
-- given, where `jsonb` rewrites it (a number such as 1.7976931348623157e308 came back as 309
-- digits that no JSON reader of f64 takes, -0.0 as 0). Nothing indexes or queries inside them.
ALTER TABLE jobs ALTER COLUMN payload TYPE json USING payload::json;
ALTER TABLE bookings ALTER COLUMN metadata TYPE json USING metadata::json;
