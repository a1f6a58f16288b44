//! A line of an allocation's or a hold's body as a client says it: a SKU's ([`LineBody`]) or a
//! kit's ([`KitLineBody`], see [`crate::kit`], which turns it into its components).

use crate::model::LineBody;
use serde::{Deserialize, Serialize};

/// A kit line of an allocation or hold: `quantity` kits, from `location` only when given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct KitLineBody {
    /// The kit.
    pub kit: String,
    /// Kits, >= 1.
    pub quantity: i64,
    /// Every component only from this location (overrides the request's `placement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// One line of an allocation's or a hold's stock lines as a client says it: a SKU's or a
/// kit's. Read in one pass through [`LineFields`], as a hold's lines are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged, try_from = "LineFields")]
pub enum OrderLineBody {
    /// Units of one SKU.
    Stock(LineBody),
    /// Whole kits: each of its components.
    Kit(KitLineBody),
}

/// An order line as read: the fields either kind may have.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineFields {
    #[serde(default)]
    sku: Option<String>,
    #[serde(default)]
    kit: Option<String>,
    quantity: i64,
    #[serde(default)]
    location: Option<String>,
}

impl TryFrom<LineFields> for OrderLineBody {
    type Error = &'static str;

    fn try_from(f: LineFields) -> std::result::Result<Self, Self::Error> {
        match (f.sku, f.kit) {
            (Some(sku), None) => Ok(OrderLineBody::Stock(LineBody {
                sku,
                quantity: f.quantity,
                location: f.location,
            })),
            (None, Some(kit)) => Ok(OrderLineBody::Kit(KitLineBody {
                kit,
                quantity: f.quantity,
                location: f.location,
            })),
            _ => Err("a line names `sku` or `kit`, one of the two"),
        }
    }
}

impl From<LineBody> for OrderLineBody {
    fn from(l: LineBody) -> Self {
        OrderLineBody::Stock(l)
    }
}

impl OrderLineBody {
    /// The stock line, if it is one.
    pub fn into_stock(self) -> Option<LineBody> {
        match self {
            OrderLineBody::Stock(l) => Some(l),
            OrderLineBody::Kit(_) => None,
        }
    }

    /// The kit the line names, if it is a kit line.
    pub fn kit(&self) -> Option<&str> {
        match self {
            OrderLineBody::Kit(k) => Some(&k.kit),
            OrderLineBody::Stock(_) => None,
        }
    }
}
