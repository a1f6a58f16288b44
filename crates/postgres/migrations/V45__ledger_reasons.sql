-- Reasons and references on the ledger (issue 58, allot_core::model::reason). `reason` is the
-- reason a client said (adjustments, level sets, moves), NULL for "its kind's" (an
-- allocation is `sold`, a hold `reserved`, ...), so the hot paths write nothing more;
-- `reference` is the absolute URI of the document behind the change, when the request named
-- one. Both nullable without a default: adding them rewrites no row.
ALTER TABLE ledger ADD COLUMN reason text, ADD COLUMN reference text;
