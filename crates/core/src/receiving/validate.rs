//! Validation of incoming stock and receipts.

use crate::location::validate::location_or_default;
use crate::receiving::{Incoming, IncomingBody, Receipt, ReceiptBody};
use crate::support::checks::{name, quantity};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::input::instant;
use crate::support::limits::Limits;

pub use crate::support::input::{reference, REFERENCE_PATTERN};

/// Validate `POST /v1/skus/{sku}/incoming`: the SKU, 1..=`max_quantity` units, a location
/// name (default `default`), a reference URI.
pub fn incoming(id: String, sku: &str, body: IncomingBody, limits: &Limits) -> Result<Incoming> {
    name("sku", sku, limits)?;
    quantity("quantity", body.quantity, 1, limits)?;
    let location = location_or_default(body.location, limits)?;
    if let Some(r) = &body.reference {
        reference("reference", r)?;
    }
    let expected_at = body.expected_at.map(|t| instant("expected_at", t)).transpose()?;
    Ok(Incoming {
        id,
        sku: sku.to_string(),
        location,
        quantity: body.quantity,
        received: 0,
        expected_at,
        reference: body.reference,
        actor: None,
    })
}

/// Validate `POST /v1/skus/{sku}/receipts`: the SKU, 1..=`max_quantity` units, either an
/// incoming's id (an object id: a name) or a location (default `default`), a reference URI.
pub fn receipt(id: String, sku: &str, body: ReceiptBody, limits: &Limits) -> Result<Receipt> {
    name("sku", sku, limits)?;
    quantity("quantity", body.quantity, 1, limits)?;
    let location = match &body.incoming_id {
        Some(i) => {
            name("incoming_id", i, limits)?;
            if body.location.is_some() {
                return Err(AllotError::breaks(
                    Rule::LocationWithIncoming,
                    "location: a receipt naming incoming_id arrives at the incoming's location; give one of them",
                ));
            }
            None
        }
        None => Some(location_or_default(body.location, limits)?),
    };
    if let Some(r) = &body.reference {
        reference("reference", r)?;
    }
    Ok(Receipt {
        id,
        sku: sku.to_string(),
        location,
        quantity: body.quantity,
        incoming_id: body.incoming_id,
        reference: body.reference,
        actor: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receiving::MAX_REFERENCE_LEN;

    fn limits() -> Limits {
        Limits::default()
    }

    #[test]
    fn a_reference_is_an_absolute_uri() {
        assert!(reference("reference", "erp://po/4711").is_ok());
        assert!(reference("reference", "https://erp.example/po?id=1").is_ok());
        for bad in [
            "po 4711",
            "4711",
            "/po/4711",
            "erp://po/\u{7}",
            "",
            "erp:",
            "1x:y",
            "erp://p o",
        ] {
            let e = reference("reference", bad).unwrap_err();
            assert!(e.to_string().starts_with("reference"), "{bad:?}: {e}");
        }
        let long = format!("erp://{}", "x".repeat(MAX_REFERENCE_LEN));
        assert!(reference("reference", &long).is_err());
    }

    #[test]
    fn a_receipt_names_an_incoming_or_a_location() {
        let body = |location: Option<&str>, incoming: Option<&str>| ReceiptBody {
            quantity: 2,
            location: location.map(str::to_string),
            incoming_id: incoming.map(str::to_string),
            reference: None,
        };
        let r = receipt("r".into(), "A", body(None, None), &limits()).unwrap();
        assert_eq!(r.location.as_deref(), Some("default"));
        let r = receipt("r".into(), "A", body(None, Some("i1")), &limits()).unwrap();
        assert_eq!((r.location, r.incoming_id.as_deref()), (None, Some("i1")));
        let e = receipt("r".into(), "A", body(Some("WEST"), Some("i1")), &limits()).unwrap_err();
        assert!(e.to_string().starts_with("location"), "{e}");
        let mut zero = body(None, None);
        zero.quantity = 0;
        assert!(receipt("r".into(), "A", zero, &limits())
            .unwrap_err()
            .to_string()
            .contains("quantity"));
    }

    #[test]
    fn incoming_needs_units_and_a_location_name() {
        let body = IncomingBody {
            quantity: 5,
            location: Some("bad name".into()),
            expected_at: None,
            reference: None,
        };
        assert!(incoming("i".into(), "A", body, &limits())
            .unwrap_err()
            .to_string()
            .contains("location"));
        let ok = IncomingBody {
            quantity: 5,
            location: None,
            expected_at: None,
            reference: Some("erp://po/1".into()),
        };
        let i = incoming("i".into(), "A", ok, &limits()).unwrap();
        assert_eq!((i.location.as_str(), i.received), ("default", 0));
    }
}
