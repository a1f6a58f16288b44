//! Validation of kits and kit lines.

use crate::kit::{Kit, KitBody, KitLineBody};
use crate::support::checks::{max_lines, name, quantity, NamedOnce};
use crate::support::error::Result;
use crate::support::limits::Limits;

/// Validate `PUT /v1/kits/{kit}`: the kit's name (a SKU's rule), 1..=`max_lines` components,
/// each a SKU named once (`duplicate_sku`) with 1..=`max_quantity` units per kit. The
/// components come back sorted by SKU. A refusal of a component names it
/// (`components[i]`).
pub fn kit(kit: &str, body: KitBody, limits: &Limits) -> Result<Kit> {
    name("kit", kit, limits)?;
    if body.components.is_empty() {
        return Err(crate::AllotError::invalid("components must not be empty"));
    }
    max_lines(body.components.len(), limits)?;
    let mut named = NamedOnce::default();
    for (i, c) in body.components.iter().enumerate() {
        let at = |e: crate::AllotError| e.within(&format!("components[{i}]"));
        name("sku", &c.sku, limits).map_err(at)?;
        quantity("quantity", c.quantity, 1, limits).map_err(at)?;
        named.note(&c.sku)?;
    }
    let mut components = body.components;
    components.sort_by(|a, b| a.sku.cmp(&b.sku));
    Ok(Kit {
        kit: kit.to_string(),
        components,
    })
}

/// A kit line's own fields: the kit's name, 1..=`max_quantity` kits, a location name.
pub fn kit_line(line: &KitLineBody, limits: &Limits) -> Result<()> {
    name("kit", &line.kit, limits)?;
    quantity("quantity", line.quantity, 1, limits)?;
    if let Some(l) = &line.location {
        name("location", l, limits)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: serde_json::Value) -> KitBody {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn components_are_checked_and_sorted() {
        let l = Limits::default();
        let k = kit(
            "BOX",
            body(json!({"components": [{"sku": "T", "quantity": 1}, {"sku": "M", "quantity": 2}]})),
            &l,
        );
        let skus: Vec<String> = k.unwrap().components.into_iter().map(|c| c.sku).collect();
        assert_eq!(skus, ["M", "T"]);
        let twice = body(json!({"components": [{"sku": "M", "quantity": 1}, {"sku": "M", "quantity": 2}]}));
        assert_eq!(kit("BOX", twice, &l).unwrap_err().code(), "duplicate_sku");
        let none = body(json!({"components": []}));
        assert_eq!(kit("BOX", none, &l).unwrap_err().code(), "invalid_request");
        let zero = body(json!({"components": [{"sku": "M", "quantity": 0}]}));
        assert!(kit("BOX", zero, &l).unwrap_err().to_string().contains("components[0]"));
        let bad = body(json!({"components": [{"sku": "M", "quantity": 1}]}));
        assert_eq!(kit("a b", bad, &l).unwrap_err().code(), "invalid_request");
    }
}
