-- Backorders filled where a hold gives stock back (issue 58): a release, an expiry (by the
-- sweeper, by a writer that met an overdue hold, by a lane) and the part of a partial confirm
-- that is released now fill the owed lines of the SKU at that location, oldest first, in
-- the same transaction, as every other write that brings stock back does (V47).
--
-- One implementation of a fill, `allot_fill_backorders`, serves every writer: the Rust
-- writers that add stock (allot_postgres stock/backorders.rs), the partial confirm, the
-- `batched` lanes' releases, and `allot_finish_holds` below.
--
-- For each (SKU, location) of `p_skus`/`p_locations` whose SKU owes anything, in byte order
-- of SKU then location (every backend and the model fill in this order): the location's
-- stock rows locked (bucket order), the owed lines that may use it locked oldest first
-- (`seq`), each filled with what is left, up to what it owes; one `backorder_filled` ledger
-- entry per fill, by `p_actor` at `p_at`, and the fill appended to the line's `fills`; what
-- is left spread evenly over the location's buckets (allot_core::plan_rebalance: the first
-- buckets take the remainder).
CREATE FUNCTION allot_fill_backorders(p_tenant text, p_skus text[], p_locations text[],
                                      p_actor text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    p record;
    o record;
    avail int8;
    rows_n int8;
    left_over int8;
    f int8;
BEGIN
    FOR p IN SELECT d.sku, d.loc FROM (SELECT DISTINCT t.sku, t.loc FROM unnest(p_skus, p_locations) AS t(sku, loc)) d
              WHERE EXISTS (SELECT 1 FROM backorders b WHERE b.tenant = p_tenant AND b.sku = d.sku
                               AND b.filled + b.cancelled < b.quantity)
              ORDER BY d.sku COLLATE "C", d.loc COLLATE "C"
    LOOP
        SELECT coalesce(sum(r.on_hand - r.held), 0), count(*) INTO avail, rows_n
          FROM (SELECT on_hand, held FROM stock WHERE tenant = p_tenant AND sku = p.sku AND location = p.loc
                 ORDER BY bucket FOR UPDATE) r;
        CONTINUE WHEN avail <= 0;
        left_over := avail;
        FOR o IN SELECT allocation_id, quantity - filled - cancelled AS owed FROM backorders
                  WHERE tenant = p_tenant AND sku = p.sku AND filled + cancelled < quantity
                    AND (location IS NULL OR location = p.loc)
                  ORDER BY seq FOR UPDATE
        LOOP
            EXIT WHEN left_over = 0;
            f := least(o.owed, left_over);
            left_over := left_over - f;
            UPDATE backorders SET filled = filled + f,
                   fills = fills || jsonb_build_array(jsonb_build_object('location', p.loc, 'quantity', f))
             WHERE tenant = p_tenant AND allocation_id = o.allocation_id AND sku = p.sku;
            INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
            VALUES (p_tenant, p.sku, -f, 0, 'backorder_filled', o.allocation_id, p_actor, p.loc, p_at);
        END LOOP;
        CONTINUE WHEN left_over = avail;
        WITH r AS (SELECT bucket, held, row_number() OVER (ORDER BY bucket) - 1 AS i FROM stock
                    WHERE tenant = p_tenant AND sku = p.sku AND location = p.loc),
             n AS (SELECT bucket, held + left_over / rows_n
                          + CASE WHEN i < left_over % rows_n THEN 1 ELSE 0 END AS on_hand FROM r)
        UPDATE stock s SET on_hand = n.on_hand, version = s.version + 1
          FROM n WHERE s.tenant = p_tenant AND s.sku = p.sku AND s.bucket = n.bucket
           AND s.on_hand <> n.on_hand;
    END LOOP;
END $$;

-- As V42's, and a release or an expiry then fills what the SKUs of the holds it finishes owe
-- at the locations their stock goes back to. A confirm gives nothing back: nothing to fill.
-- Before the holds are finished, every stock row at those locations is locked in the global
-- order (SKU in byte order, then bucket): a fill locks the location's other buckets too, and
-- taking them after the hold's own would invert the order a backordering allocation, a cancel
-- or a receipt takes them in.
ALTER FUNCTION allot_finish_holds(text, text[], text, timestamptz, text, text) RENAME TO allot_finish_holds_unfilled;
CREATE FUNCTION allot_finish_holds(p_tenant text, p_ids text[], p_to text, p_at timestamptz,
                                   p_actor text, p_kind text)
RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    done text[];
    v_skus text[];
    v_locations text[];
BEGIN
    IF p_to <> 'confirmed' THEN
        SELECT array_agg(hl.sku), array_agg(st.location) INTO v_skus, v_locations
          FROM hold_lines hl
          JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id AND h.status = 'held'
          JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
         WHERE hl.tenant = p_tenant AND hl.hold_id = ANY(p_ids) AND hl.bucket >= 0
           AND EXISTS (SELECT 1 FROM backorders b WHERE b.tenant = p_tenant AND b.sku = hl.sku
                          AND b.filled + b.cancelled < b.quantity);
    END IF;
    IF v_skus IS NOT NULL THEN
        PERFORM 1 FROM stock s
          JOIN (SELECT DISTINCT t.sku, t.loc FROM unnest(v_skus, v_locations) AS t(sku, loc)) d
            ON s.tenant = p_tenant AND s.sku = d.sku AND s.location = d.loc
         ORDER BY s.sku COLLATE "C", s.bucket FOR UPDATE OF s;
    END IF;
    done := allot_finish_holds_unfilled(p_tenant, p_ids, p_to, p_at, p_actor, p_kind);
    IF v_skus IS NOT NULL AND cardinality(done) > 0 THEN
        PERFORM allot_fill_backorders(p_tenant, v_skus, v_locations, p_actor, p_at);
    END IF;
    RETURN done;
END $$;
