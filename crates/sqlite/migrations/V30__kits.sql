-- Kits (issue 58, allot_core::kit): a named set of component SKUs with quantities, kept as
-- JSON; what a request took through a kit is recorded per component.
CREATE TABLE kits (
    tenant        TEXT NOT NULL,
    kit           TEXT NOT NULL,
    components    TEXT NOT NULL,
    updated_at_us INTEGER NOT NULL,
    PRIMARY KEY (tenant, kit)
);
