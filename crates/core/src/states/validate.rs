//! Validation of moves between quantity states.

use crate::location::validate::location_or_default;
use crate::states::{Move, MoveBody};
use crate::support::checks::{name, quantity};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::input::reference;
use crate::support::limits::Limits;

/// Validate `POST /v1/skus/{sku}/moves`: the SKU, two different states (`422 same_state`),
/// 1..=`max_quantity` units, a location name (default `default`), a reference URI.
pub fn movement(id: String, sku: &str, body: MoveBody, limits: &Limits) -> Result<Move> {
    name("sku", sku, limits)?;
    if body.from == body.to {
        return Err(AllotError::breaks(
            Rule::SameState,
            format!(
                "to: a move needs two different states (from and to are both `{}`)",
                body.to.as_str()
            ),
        ));
    }
    quantity("quantity", body.quantity, 1, limits)?;
    let location = location_or_default(body.location, limits)?;
    if let Some(r) = &body.reference {
        reference("reference", r)?;
    }
    Ok(Move {
        id,
        sku: sku.to_string(),
        location,
        from: body.from,
        to: body.to,
        quantity: body.quantity,
        reason: body.reason,
        reference: body.reference,
        actor: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reason::StockReason;
    use crate::states::QuantityState;

    fn body(from: QuantityState, to: QuantityState, quantity: i64) -> MoveBody {
        MoveBody {
            from,
            to,
            quantity,
            location: None,
            reason: StockReason::Damaged,
            reference: None,
        }
    }

    #[test]
    fn a_move_names_two_states_and_a_quantity() {
        let l = Limits::default();
        let m = movement(
            "m".into(),
            "A",
            body(QuantityState::Available, QuantityState::Damaged, 2),
            &l,
        )
        .unwrap();
        assert_eq!((m.location.as_str(), m.quantity), ("default", 2));
        let same = movement(
            "m".into(),
            "A",
            body(QuantityState::Damaged, QuantityState::Damaged, 2),
            &l,
        );
        assert_eq!(same.unwrap_err().code(), "same_state");
        let zero = movement(
            "m".into(),
            "A",
            body(QuantityState::Available, QuantityState::Damaged, 0),
            &l,
        );
        assert!(zero.unwrap_err().to_string().contains("quantity"));
        let mut b = body(QuantityState::Available, QuantityState::Damaged, 1);
        b.reference = Some("not a uri".into());
        assert!(movement("m".into(), "A", b, &l)
            .unwrap_err()
            .to_string()
            .starts_with("reference"));
    }
}
