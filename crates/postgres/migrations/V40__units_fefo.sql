-- `order_by: ["fefo"]` (first expiry, first out, issue 58): `expires_at` ascending with the
-- units that have no best-before date last. units_available_expiry sorts NULL first (as
-- every other `order_by` does), so a FEFO claim could not read its order from it and sorted
-- every available unit of the SKU on each claim. FEFO orders by
-- COALESCE(expires_at, 'infinity') (allot_core::unit::FEFO_KEY: no instant the API takes is
-- infinity), and a pick's "not past its date" is that key > now: a range of this index, so
-- a claim starts at the first unit still in date instead of stepping over every unit past
-- its date (they stay available, and would pile up at the head of the order). Partial over
-- available units as the others: a claim that takes a unit leaves the index, it writes no
-- entry.
CREATE INDEX units_available_fefo ON units (tenant, sku, (COALESCE(expires_at, 'infinity'::timestamptz)), id)
    WHERE status = 'available';
