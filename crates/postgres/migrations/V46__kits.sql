-- Kits (issue 58, allot_core::kit): a named set of component SKUs with quantities. An
-- allocation or hold line of a kit is turned into its components' demand before anything is
-- checked, so nothing else stores kits: what a request took is recorded per component.
CREATE TABLE kits (
    tenant     text NOT NULL,
    kit        text NOT NULL,
    components jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, kit)
);
