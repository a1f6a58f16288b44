-- `order_by: ["fefo"]` (first expiry, first out, issue 58): `expires_at` ascending with the
-- units that have no best-before date last. units_available_expiry sorts NULL first (as
-- every other `order_by` does), so a FEFO claim could not read its order from it and sorted
-- every available unit of the SKU on each claim. A claim's pick also skips units past their
-- date (`expires_at > now`), which this index reads as a range. Partial over available
-- units as the others: a claim that takes a unit leaves the index, it writes no entry.
CREATE INDEX units_available_fefo ON units (tenant, sku, expires_at NULLS LAST, id) WHERE status = 'available';
