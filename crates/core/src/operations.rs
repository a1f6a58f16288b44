//! `POST /v1/batch`: several stock operations in one request, each decided on its own.
//!
//! A batch carries up to [`Limits::max_batch_operations`] operations — allocate, hold,
//! confirm, release, cancel — each shaped as the body (or id) of its own endpoint, with its
//! own optional idempotency key. The whole batch is validated before any operation runs (a
//! malformed operation refuses the batch, naming `operations[i].…`, and changes nothing);
//! what each operation then meets (a short SKU, an unknown hold) is that operation's own
//! outcome. The shape follows TigerBeetle's batched requests (many events per request, one
//! result per event), with the HTTP status and body each operation would have had alone.

use crate::hold::{ConfirmBody, HoldBody};
use crate::model::AllocationBody;
use crate::support::error::{AllotError, Result, Rule};
use crate::support::limits::Limits;
use serde::Deserialize;

/// `POST /v1/batch` body.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BatchBody {
    /// 1..=`max_batch_operations` operations; results come back in the same order.
    pub operations: Vec<OperationBody>,
}

/// One operation of a batch, named by `op`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OperationBody {
    /// `POST /v1/allocations` with `body`.
    Allocate {
        /// The allocation's body.
        #[serde(deserialize_with = "crate::support::input::object")]
        body: AllocationBody,
        /// The operation's `Idempotency-Key` (1..=`max_idempotency_key_len` printable ASCII).
        #[serde(default)]
        idempotency_key: Option<String>,
    },
    /// `POST /v1/holds` with `body`.
    Hold {
        /// The hold's body.
        #[serde(deserialize_with = "crate::support::input::object")]
        body: HoldBody,
        /// The operation's `Idempotency-Key`.
        #[serde(default)]
        idempotency_key: Option<String>,
    },
    /// `POST /v1/holds/{id}/confirm`, with `body` when only part is confirmed.
    Confirm {
        /// The hold's id.
        id: String,
        /// What to confirm; all of it when absent.
        #[serde(default, deserialize_with = "crate::support::input::object_only")]
        body: Option<ConfirmBody>,
        /// The operation's `Idempotency-Key`.
        #[serde(default)]
        idempotency_key: Option<String>,
    },
    /// `POST /v1/holds/{id}/release`.
    Release {
        /// The hold's id.
        id: String,
        /// The operation's `Idempotency-Key`.
        #[serde(default)]
        idempotency_key: Option<String>,
    },
    /// `POST /v1/allocations/{id}/cancel`.
    Cancel {
        /// The allocation's id.
        id: String,
        /// The operation's `Idempotency-Key`.
        #[serde(default)]
        idempotency_key: Option<String>,
    },
}

/// The closed set of operations a batch carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationKind {
    /// A new allocation.
    Allocate,
    /// A new hold.
    Hold,
    /// A hold's confirm.
    Confirm,
    /// A hold's release.
    Release,
    /// An allocation's cancel.
    Cancel,
}

impl OperationBody {
    /// Which operation this is.
    pub fn kind(&self) -> OperationKind {
        match self {
            OperationBody::Allocate { .. } => OperationKind::Allocate,
            OperationBody::Hold { .. } => OperationKind::Hold,
            OperationBody::Confirm { .. } => OperationKind::Confirm,
            OperationBody::Release { .. } => OperationKind::Release,
            OperationBody::Cancel { .. } => OperationKind::Cancel,
        }
    }

    /// The operation's idempotency key, if it has one.
    pub fn idempotency_key(&self) -> Option<&str> {
        match self {
            OperationBody::Allocate { idempotency_key, .. }
            | OperationBody::Hold { idempotency_key, .. }
            | OperationBody::Confirm { idempotency_key, .. }
            | OperationBody::Release { idempotency_key, .. }
            | OperationBody::Cancel { idempotency_key, .. } => idempotency_key.as_deref(),
        }
    }
}

/// Check a batch as a whole: 1..=`max_batch_operations` operations (`400 invalid_request`
/// for none, `limit_exceeded` beyond), and every idempotency key well formed and used once
/// in the batch (two operations under one key would race for it). Each operation's own
/// body is checked by its endpoint's validation, with its errors under `operations[i]`.
pub fn batch(body: &BatchBody, limits: &Limits) -> Result<()> {
    let n = body.operations.len();
    if n == 0 {
        return Err(AllotError::invalid("operations: at least one operation is needed"));
    }
    if n > limits.max_batch_operations {
        return Err(AllotError::LimitExceeded {
            limit: "max_batch_operations",
            max: limits.max_batch_operations as u64,
            message: format!("operations: {n} operations"),
        });
    }
    let mut seen = std::collections::HashSet::new();
    for (i, op) in body.operations.iter().enumerate() {
        let Some(key) = op.idempotency_key() else { continue };
        crate::support::checks::idempotency_key(key, limits)
            .map_err(|e| e.within(&format!("operations[{i}].idempotency_key")))?;
        if !seen.insert(key) {
            return Err(AllotError::breaks(
                Rule::DuplicateIdempotencyKey,
                format!(
                    "operations[{i}].idempotency_key: `{}` is used by an earlier operation of this batch",
                    crate::support::error::echo(key)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: serde_json::Value) -> std::result::Result<BatchBody, serde_json::Error> {
        serde_json::from_value(v)
    }

    #[test]
    fn operations_parse_by_op() {
        let b = parse(serde_json::json!({"operations": [
            {"op": "allocate", "body": {"lines": [{"sku": "A", "quantity": 1}]}, "idempotency_key": "k1"},
            {"op": "hold", "body": {"lines": [{"sku": "A", "quantity": 1}], "ttl_ms": 5000}},
            {"op": "confirm", "id": "h1"},
            {"op": "confirm", "id": "h2", "body": {"lines": [{"sku": "A", "quantity": 1}]}},
            {"op": "release", "id": "h3"},
            {"op": "cancel", "id": "a1", "idempotency_key": "k2"},
        ]}))
        .unwrap();
        let kinds: Vec<OperationKind> = b.operations.iter().map(OperationBody::kind).collect();
        use OperationKind::*;
        assert_eq!(kinds, [Allocate, Hold, Confirm, Confirm, Release, Cancel]);
        assert_eq!(b.operations[0].idempotency_key(), Some("k1"));
        assert!(batch(&b, &Limits::default()).is_ok());
    }

    #[test]
    fn unknown_fields_ops_and_arrays_are_refused() {
        for bad in [
            serde_json::json!({"operations": [{"op": "steal", "id": "x"}]}),
            serde_json::json!({"operations": [{"op": "release", "id": "x", "extra": 1}]}),
            serde_json::json!({"operations": [{"op": "allocate", "body": [[{"sku": "A", "quantity": 1}]]}]}),
            serde_json::json!({"operations": [{"op": "cancel"}]}),
            serde_json::json!({"operations": [], "more": 1}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_and_keys_are_checked() {
        let l = Limits {
            max_batch_operations: 2,
            ..Limits::default()
        };
        let release = |key: &str| OperationBody::Release {
            id: "h".into(),
            idempotency_key: Some(key.into()),
        };
        let none = BatchBody { operations: vec![] };
        assert!(matches!(batch(&none, &l), Err(AllotError::InvalidRequest(_))));
        let three = BatchBody {
            operations: vec![release("a"), release("b"), release("c")],
        };
        assert!(matches!(
            batch(&three, &l),
            Err(AllotError::LimitExceeded {
                limit: "max_batch_operations",
                ..
            })
        ));
        let twice = BatchBody {
            operations: vec![release("a"), release("a")],
        };
        let e = batch(&twice, &l).unwrap_err().to_string();
        assert!(e.contains("operations[1].idempotency_key"), "{e}");
        let bad = BatchBody {
            operations: vec![release("a\u{7f}")],
        };
        let e = batch(&bad, &l).unwrap_err().to_string();
        assert!(e.contains("operations[0].idempotency_key"), "{e}");
    }
}
