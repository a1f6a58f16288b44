//! Kits: a named set of component SKUs with quantities, sold as one (a gift box of two mugs
//! and a tray; a bike with its helmet). An allocation or hold line `{"kit":"K","quantity":3}`
//! takes every component (`3 ×` its quantity) in the same transaction as the request's other
//! lines, by any strategy: before anything is checked, the request's lines are turned into
//! one line per SKU, and the demand for a SKU from several lines (kit lines and a plain line)
//! is summed ([`expand`]). So two lines sharing a component cannot each be checked alone and
//! together oversell it (Medusa's inventory-kit bug #16502). A kit's availability is the
//! minimum over its components of `available / quantity` ([`availability`]).
//!
//! What a request took is recorded per SKU: the allocation's or hold's lines are the
//! components, so a cancel, a release or an expiry gives back each component, and a return
//! names the components it brings back.

pub mod validate;

pub use crate::model::order_line::{KitLineBody, OrderLineBody};
use crate::model::{LineBody, Sku};
use crate::support::checks::quantity;
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `PUT /v1/kits/{kit}` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct KitBody {
    /// 1..=`max_lines` components, each SKU once.
    pub components: Vec<Component>,
}

/// One component of a kit: a count-tracked SKU and how many of it one kit takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Component {
    /// The SKU (count-tracked; it must exist when the kit is written).
    pub sku: String,
    /// Units of it per kit, 1..=`max_quantity`.
    pub quantity: i64,
}

/// A kit: its name and components, sorted by SKU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Kit {
    /// The kit's name (a name as a SKU's).
    pub kit: String,
    /// Its components, by SKU.
    pub components: Vec<Component>,
}

/// The kits a request's kit lines name, by name, as the store read them.
pub type Kits = BTreeMap<String, Kit>;

/// `GET /v1/kits/{kit}`: the kit, how many of each component are available, and how many
/// whole kits that makes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KitAvailability {
    /// The kit's name.
    pub kit: String,
    /// Each component with the SKU's `available` (every location).
    pub components: Vec<ComponentAvailability>,
    /// Whole kits available now: the minimum over the components of `available / quantity`
    /// (rounded down; 0 when any component is short).
    pub available: i64,
}

/// One component in a [`KitAvailability`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ComponentAvailability {
    /// The SKU.
    pub sku: String,
    /// Units per kit.
    pub quantity: i64,
    /// The SKU's available units.
    pub available: i64,
}

/// How many whole `kit`s the `skus` (its components, as read) make.
pub fn availability(kit: &Kit, skus: &[Sku]) -> KitAvailability {
    let components: Vec<ComponentAvailability> = kit
        .components
        .iter()
        .map(|c| ComponentAvailability {
            sku: c.sku.clone(),
            quantity: c.quantity,
            available: skus.iter().find(|s| s.sku == c.sku).map_or(0, |s| s.available.max(0)),
        })
        .collect();
    let available = components.iter().map(|c| c.available / c.quantity).min().unwrap_or(0);
    KitAvailability {
        kit: kit.kit.clone(),
        components,
        available,
    }
}

/// Whether `kit` may be written: `not_found` for the first component that is not a SKU of
/// the tenant, `wrong_tracking` for one that counts units; `found` holds each SKU of the
/// components that exists, with whether it counts units (as the store read them).
pub fn check_components(kit: &Kit, found: &[(String, bool)]) -> Result<()> {
    for c in &kit.components {
        match found.iter().find(|(sku, _)| *sku == c.sku) {
            None => return Err(AllotError::not_found("sku", &c.sku)),
            Some((_, true)) => return Err(AllotError::wrong_tracking(&c.sku, true)),
            Some((_, false)) => {}
        }
    }
    Ok(())
}

/// The components of kit `kit` from their stored JSON (a fault of ours when they do not
/// parse).
pub fn components_of(kit: &str, json: &str) -> Result<Vec<Component>> {
    serde_json::from_str(json).map_err(|e| AllotError::Internal(format!("kit {kit}: its components: {e}")))
}

/// The names of the kits `lines` name, each once.
pub fn named<'a>(lines: impl IntoIterator<Item = &'a OrderLineBody>) -> Vec<String> {
    let mut names: Vec<String> = lines.into_iter().filter_map(|l| l.kit().map(str::to_string)).collect();
    names.sort();
    names.dedup();
    names
}

/// `lines` as one stock line per SKU: each plain line as it is (a SKU named by two plain
/// lines stays two lines, refused later as `duplicate_sku`), each kit line's components
/// (`kits × quantity`) added to the line of their SKU, or a new one, so the demand for a SKU
/// from several lines is summed before it is checked. A kit line's location pins its
/// components; demand for one SKU from lines pinned to different locations (or one pinned,
/// one not) is refused, naming the kit line. Errors: `not_found` for a kit `kits` does not
/// hold, `invalid_request` or `limit_exceeded` for a plain line's quantity below 1 or a kit
/// line's name or quantity, naming the line (`lines[i]`).
pub fn expand(lines: Vec<OrderLineBody>, kits: &Kits, limits: &Limits) -> Result<Vec<LineBody>> {
    let mut out: Vec<LineBody> = Vec::with_capacity(lines.len());
    let mut kit_lines = Vec::new();
    for (i, l) in lines.into_iter().enumerate() {
        match l {
            // A plain line is whole before a kit adds to it: 0 or less would cancel out part
            // of a kit's demand.
            OrderLineBody::Stock(s) => {
                quantity("quantity", s.quantity, 1, limits).map_err(|e| e.within(&format!("lines[{i}]")))?;
                out.push(s)
            }
            OrderLineBody::Kit(k) => kit_lines.push((i, k)),
        }
    }
    for (i, k) in kit_lines {
        validate::kit_line(&k, limits).map_err(|e| e.within(&format!("lines[{i}]")))?;
        // A refusal of its components' demand names the line by its kit (its name checked).
        let at = |e: AllotError| e.within(&format!("lines[{i}] (kit {})", k.kit));
        let kit = kits.get(&k.kit).ok_or_else(|| AllotError::not_found("kit", &k.kit))?;
        for c in &kit.components {
            let demand = c.quantity.checked_mul(k.quantity).unwrap_or(i64::MAX);
            add_demand(&mut out, (&c.sku, demand, &k.location)).map_err(at)?;
        }
    }
    Ok(out)
}

/// Add `demand` units of `sku` pinned to `location` to the line of that SKU in `out`, or a
/// new line.
fn add_demand(out: &mut Vec<LineBody>, (sku, demand, location): (&str, i64, &Option<String>)) -> Result<()> {
    match out.iter_mut().find(|l| l.sku == sku) {
        Some(line) if line.location != *location => Err(AllotError::invalid(format!(
            "location: the kit's component `{sku}` is also taken by another line from another location \
             (pin both to one location, or neither)"
        ))),
        Some(line) => {
            line.quantity = line.quantity.saturating_add(demand);
            Ok(())
        }
        None => {
            out.push(LineBody {
                sku: sku.to_string(),
                quantity: demand,
                location: location.clone(),
            });
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kits() -> Kits {
        let k = Kit {
            kit: "BOX".into(),
            components: vec![
                Component {
                    sku: "MUG".into(),
                    quantity: 2,
                },
                Component {
                    sku: "TRAY".into(),
                    quantity: 1,
                },
            ],
        };
        Kits::from([("BOX".to_string(), k)])
    }

    fn lines(v: serde_json::Value) -> Vec<OrderLineBody> {
        serde_json::from_value(v).unwrap()
    }

    /// A kit line and a plain line sharing a component are one line of their summed demand.
    #[test]
    fn shared_components_are_summed_before_any_check() {
        let l = lines(json!([{"sku": "MUG", "quantity": 1}, {"kit": "BOX", "quantity": 3}]));
        let out = expand(l, &kits(), &Limits::default()).unwrap();
        let got: Vec<(&str, i64)> = out.iter().map(|l| (l.sku.as_str(), l.quantity)).collect();
        assert_eq!(got, [("MUG", 7), ("TRAY", 3)]);
        let two = lines(json!([{"kit": "BOX", "quantity": 1}, {"kit": "BOX", "quantity": 2}]));
        let out = expand(two, &kits(), &Limits::default()).unwrap();
        assert_eq!(out[0].quantity, 6, "two kit lines of one kit sum too");
    }

    #[test]
    fn unknown_kits_mixed_pins_and_bad_lines_are_refused() {
        let unknown = lines(json!([{"kit": "NOPE", "quantity": 1}]));
        assert_eq!(
            expand(unknown, &kits(), &Limits::default()).unwrap_err().code(),
            "not_found"
        );
        let pins = lines(json!([{"sku": "MUG", "quantity": 1, "location": "east"}, {"kit": "BOX", "quantity": 1}]));
        let e = expand(pins, &kits(), &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("lines[1] (kit BOX)"), "{e}");
        let negative = lines(json!([{"sku": "MUG", "quantity": -1}, {"kit": "BOX", "quantity": 1}]));
        let e = expand(negative, &kits(), &Limits::default()).unwrap_err();
        assert!(
            e.to_string().contains("lines[0]"),
            "a plain line cannot cancel out a kit's demand: {e}"
        );
        let zero = lines(json!([{"kit": "BOX", "quantity": 0}]));
        assert_eq!(
            expand(zero, &kits(), &Limits::default()).unwrap_err().code(),
            "invalid_request"
        );
        assert!(serde_json::from_value::<OrderLineBody>(json!({"sku": "A", "kit": "B", "quantity": 1})).is_err());
        assert!(serde_json::from_value::<OrderLineBody>(json!({"quantity": 1})).is_err());
    }

    #[test]
    fn availability_is_the_scarcest_component() {
        let sku = |name: &str, available| Sku::from_counts(name, available, 0, 1, 1);
        let a = availability(&kits()["BOX"], &[sku("MUG", 9), sku("TRAY", 7)]);
        assert_eq!(a.available, 4);
        let a = availability(&kits()["BOX"], &[sku("MUG", 9)]);
        assert_eq!(a.available, 0, "a component not read counts as none");
    }
}
