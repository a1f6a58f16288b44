//! `POST /v1/batch`: many stock operations in one request, one outcome each, in order.
//!
//! The batch is read and validated whole first (a malformed operation refuses it, naming
//! `operations[i]…`, before anything runs); the caller's rate is charged one per operation;
//! then the operations run on the same paths as their own endpoints — those on `batched`
//! lanes all at once (so operations on one SKU share the lane's transactions), the others at
//! most `max_batch_concurrency` at a time — and each answer is the status and body that
//! endpoint would have sent. An id no object can have is that operation's `404`, as on its
//! endpoint, without a read.

use super::{holds, stock};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, IdempotencyKey, JsonBody, Who};
use crate::state::AppState;
use crate::write::WriteKey;
use allot_core::operations::{BatchBody, OperationBody};
use allot_core::store::Executed;
use allot_core::{AllotError, Tenant};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::Arc;
use utoipa::ToSchema;

/// `POST /v1/batch` answer: one result per operation, in the order they were sent.
#[derive(Serialize, ToSchema)]
pub struct BatchResults {
    /// The operations' results.
    pub results: Vec<OperationResult>,
}

/// One operation's result: what its own endpoint would have answered.
#[derive(Serialize, ToSchema)]
pub struct OperationResult {
    /// The HTTP status the endpoint would have sent (201 a new allocation or hold, 200 a
    /// confirm, release or cancel, 4xx/5xx an error).
    pub status: u16,
    /// The endpoint's body: the allocation or hold, or `{"error": …}`.
    #[schema(value_type = Object)]
    pub body: Box<RawValue>,
    /// Whether it was replayed from its idempotency key (the endpoint's
    /// `Idempotent-Replayed: true`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// For the log only: what a 5xx was (never sent; its body carries only the public form).
    #[serde(skip)]
    #[schema(ignore)]
    fault: Option<String>,
}

/// An operation, validated (`auto` not yet picked).
enum Valid {
    Allocate(super::Valid<allot_core::AllocationRequest>, WriteKey),
    Hold(super::Valid<allot_core::HoldRequest>, WriteKey, Vec<String>),
    Other(Prepared),
}

/// An operation ready to run.
enum Prepared {
    Allocate(super::Picked<allot_core::AllocationRequest>, WriteKey),
    /// With its lines' SKUs in the body's order (a refusal names its line).
    Hold(super::Picked<allot_core::HoldRequest>, WriteKey, Vec<String>),
    Confirm(allot_core::hold::Confirm, WriteKey),
    Release(String, Option<String>, WriteKey),
    Cancel(String, Option<String>, WriteKey),
    /// An allocation or hold naming a kit the tenant does not have: `404` for this operation
    /// alone, as an unknown SKU is (the others run).
    Refused(AllotError),
}

impl Prepared {
    /// Whether it waits on a `batched` lane (which holds no database connection while it
    /// queues) rather than on the pool.
    fn on_a_lane(&self) -> bool {
        match self {
            Prepared::Allocate((_, s, _), _) => *s == allot_core::Strategy::Batched,
            // A hold with unit lines runs on the per-request path (`HoldStore::create_hold`).
            Prepared::Hold((r, s, _), _, _) => {
                *s == allot_core::Strategy::Batched && r.units.is_empty() && r.bookings.is_empty()
            }
            _ => false,
        }
    }
}

#[utoipa::path(post, path = "/v1/batch", request_body = BatchBody,
    responses((status = 200, body = BatchResults, description = "one result per operation, in order"),
        (status = 400, body = ErrorBody, description = "a malformed operation (named): nothing ran"),
        (status = 422, body = ErrorBody, description = "an operation its endpoint would refuse with 422 (a SKU on two lines): nothing ran"),
        (status = 429, body = ErrorBody)))]
pub(super) async fn batch(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    Who(principal): Who,
    IdempotencyKey(idem): IdempotencyKey,
    body: JsonBody<BatchBody>,
) -> Result<Json<BatchResults>, ApiError> {
    super::refuse_key(
        idem,
        "POST /v1/batch takes none; each operation takes its own `idempotency_key`",
    )?;
    allot_core::operations::batch(&body.value, &st.limits)?;
    if st.require_idempotency_key {
        if let Some(i) = body.value.operations.iter().position(|o| o.idempotency_key().is_none()) {
            let field = format!("operations[{i}].idempotency_key");
            return Err(AllotError::IdempotencyKeyRequired { field }.into());
        }
    }
    let doc = match body.value.operations.iter().any(|o| o.idempotency_key().is_some()) {
        true => body.canonical.value(),
        false => None,
    };
    let n = body.value.operations.len();
    let kits = batch_kits(&st, &tenant, &body.value.operations).await?;
    let prepared = body
        .value
        .operations
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let canonical = doc.as_ref().map(|d| &d["operations"][i]["body"]);
            prepare(&st, op, canonical, (actor.clone(), &kits)).map_err(|e| e.within(&format!("operations[{i}]")))
        })
        .collect::<Result<Vec<_>, AllotError>>()?;
    st.access.admit_operations(&principal, n as u32)?;
    // Only now, every operation valid and admitted, does `auto` count them as waiters.
    let prepared: Vec<Prepared> = prepared
        .into_iter()
        .map(|v| match v {
            Valid::Allocate(req, key) => Prepared::Allocate(super::pick(&st, &tenant, req), key),
            Valid::Hold(req, key, skus) => Prepared::Hold(super::pick(&st, &tenant, req), key, skus),
            Valid::Other(p) => p,
        })
        .collect();
    // Lane operations all at once (they share their lane's transactions); the others at most
    // `max_batch_concurrency` at a time (each may hold a pooled connection while it waits).
    let pool = tokio::sync::Semaphore::new(st.limits.max_batch_concurrency.max(1));
    let results = futures::future::join_all(prepared.into_iter().map(|p| async {
        let _permit = match p.on_a_lane() {
            true => None,
            false => pool.acquire().await.ok(),
        };
        run(&st, &tenant, p).await
    }))
    .await;
    // One line for the batch, not one per operation (a full lane refuses hundreds at once).
    let faults: Vec<&str> = results.iter().filter_map(|r| r.fault.as_deref()).collect();
    if let Some(first) = faults.first() {
        let request_id = crate::request_id::request_id().unwrap_or_default();
        tracing::error!(operations = faults.len(), error = %first, %request_id, "batch operations failed on our side");
    }
    Ok(Json(BatchResults { results }))
}

/// Whether `e` is the refusal of a kit line naming a kit the tenant does not have.
fn is_unknown_kit(e: &AllotError) -> bool {
    matches!(e, AllotError::NotFound { kind: "kit", .. })
}

/// Every kit the batch's allocations and holds name, read in one call before any is
/// validated.
async fn batch_kits(
    st: &AppState,
    tenant: &Tenant,
    ops: &[OperationBody],
) -> allot_core::Result<allot_core::kit::Kits> {
    let mut lines = Vec::new();
    for op in ops {
        match op {
            OperationBody::Allocate { body, .. } => {
                lines.extend(body.lines.iter().filter(|l| l.kit().is_some()).cloned())
            }
            OperationBody::Hold { body, .. } => lines.extend(holds::kit_lines(body)),
            _ => {}
        }
    }
    super::kits::kits_named(st, tenant, &lines).await
}

/// Validate one operation as its endpoint would (errors name its fields under `body`), with
/// its key fingerprinted as that endpoint's (`canonical`: the operation's `body` as sent).
fn prepare(
    st: &AppState,
    op: OperationBody,
    canonical: Option<&Value>,
    (actor, kits): (Option<String>, &allot_core::kit::Kits),
) -> allot_core::Result<Valid> {
    let key = |k: Option<String>, path: String| {
        let text = || {
            canonical
                .filter(|v| !v.is_null())
                .map(Value::to_string)
                .unwrap_or_default()
        };
        WriteKey::operation(k.as_deref(), &path, text)
    };
    let in_body = |e: AllotError| e.within("body");
    Ok(match op {
        OperationBody::Allocate { body, idempotency_key } => match stock::allocation_request(st, body, actor, kits) {
            Err(e) if is_unknown_kit(&e) => Valid::Other(Prepared::Refused(e)),
            req => Valid::Allocate(req.map_err(in_body)?, key(idempotency_key, "/v1/allocations".into())),
        },
        OperationBody::Hold { body, idempotency_key } => {
            let skus = holds::line_skus(&body);
            match holds::hold_request(st, body, actor, kits) {
                Err(e) if is_unknown_kit(&e) => Valid::Other(Prepared::Refused(e)),
                req => Valid::Hold(req.map_err(in_body)?, key(idempotency_key, "/v1/holds".into()), skus),
            }
        }
        OperationBody::Confirm {
            id,
            body,
            idempotency_key,
        } => {
            let part = allot_core::validate::confirm(body.unwrap_or_default(), &st.limits).map_err(in_body)?;
            let key = key(idempotency_key, format!("/v1/holds/{id}/confirm"));
            Valid::Other(Prepared::Confirm(allot_core::hold::Confirm { id, part, actor }, key))
        }
        OperationBody::Release { id, idempotency_key } => {
            let key = key(idempotency_key, format!("/v1/holds/{id}/release"));
            Valid::Other(Prepared::Release(id, actor, key))
        }
        OperationBody::Cancel { id, idempotency_key } => {
            let key = key(idempotency_key, format!("/v1/allocations/{id}/cancel"));
            Valid::Other(Prepared::Cancel(id, actor, key))
        }
    })
}

/// Run one operation on its endpoint's path and render what that endpoint would answer.
async fn run(st: &AppState, tenant: &Tenant, p: Prepared) -> OperationResult {
    match p {
        Prepared::Allocate(req, key) => rendered(StatusCode::CREATED, stock::allocate(st, tenant, req, &key).await),
        Prepared::Hold(req, key, skus) => {
            rendered_lines(StatusCode::CREATED, holds::hold(st, tenant, req, &key).await, &skus)
        }
        Prepared::Confirm(c, key) => rendered(StatusCode::OK, holds::confirm_hold_as(st, tenant, c, &key).await),
        Prepared::Release(id, actor, key) => {
            rendered(StatusCode::OK, holds::release(st, tenant, id, actor, &key).await)
        }
        Prepared::Cancel(id, actor, key) => rendered(StatusCode::OK, stock::cancel(st, tenant, id, actor, &key).await),
        Prepared::Refused(e) => rendered::<allot_core::Allocation>(StatusCode::CREATED, Err(e)),
    }
}

/// An operation's status and body, as [`super::respond`] or the error response would send:
/// a fresh answer or an error serialized straight into the result (no second parse), a
/// replayed one as stored.
fn rendered<T: Serialize>(status: StatusCode, result: allot_core::Result<Executed<T>>) -> OperationResult {
    rendered_lines(status, result, &[])
}

/// [`rendered`] for an operation with lines whose SKUs, in the body's order, are `skus`: a
/// refusal about one of them names its line (`error.line`), as the endpoint's does.
fn rendered_lines<T: Serialize>(
    status: StatusCode,
    result: allot_core::Result<Executed<T>>,
    skus: &[String],
) -> OperationResult {
    let mut fault = None;
    let (status, body, replayed) = match result {
        Ok(Executed::Fresh(v)) => (status, serde_json::value::to_raw_value(&v).ok(), false),
        Ok(ex) => {
            let (status, bytes, replayed) = super::answer_parts(status, ex);
            let stored = String::from_utf8(bytes)
                .ok()
                .and_then(|s| RawValue::from_string(s).ok());
            (status, stored, replayed)
        }
        Err(e) => {
            let status = crate::error::status_of(&e);
            if status.is_server_error() {
                fault = Some(e.to_string());
            }
            let mut error = crate::error::body_of(&e);
            error.error.line = crate::error::line_of(&e, skus);
            let body = serde_json::value::to_raw_value(&error).ok();
            (status, body, false)
        }
    };
    let body = body.unwrap_or_else(|| RawValue::from_string("null".into()).expect("null is JSON"));
    OperationResult {
        status: status.as_u16(),
        body,
        replayed,
        fault,
    }
}
