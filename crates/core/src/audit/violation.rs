//! What the audit reports broken: a violation of a SKU's (or a unit claim's) rules, and the
//! object whose books it names. Both the per-SKU rules (`audit.rs`) and the per-object rules
//! (`books.rs`) make them.

use serde::{Deserialize, Serialize};

/// What kind of object a violation names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditObjectKind {
    /// An allocation (`/v1/allocations/{id}`).
    Allocation,
    /// A hold (`/v1/holds/{id}`).
    Hold,
    /// A transfer between locations.
    Transfer,
}

/// The object whose books a violation found broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditObject {
    /// Its kind.
    pub kind: AuditObjectKind,
    /// Its id.
    pub id: String,
}

/// One SKU's (or one unit claim's) broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditViolation {
    /// The tenant the SKU belongs to.
    pub tenant: String,
    /// The SKU.
    pub sku: String,
    /// The allocation, hold or transfer whose books are broken (`None`: the SKU's own
    /// figures, or a unit claim, which `problem` names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<AuditObject>,
    /// What is wrong, in words.
    pub problem: String,
}
