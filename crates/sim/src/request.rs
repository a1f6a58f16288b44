//! Each step as the HTTP request a client sends (the API's paths and bodies), once its
//! references are resolved to a target's ids.

use crate::made::Resolved;
use crate::ops::{lines_json, Op};
use serde_json::{json, Value};

/// GET or POST: all the simulation sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A read.
    Get,
    /// A write.
    Post,
}

/// One request: method, path, JSON body, `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The path, from `/v1/`.
    pub path: String,
    /// The JSON body of a POST.
    pub body: Option<Value>,
    /// The `Idempotency-Key`.
    pub key: Option<&'static str>,
}

impl Request {
    /// What an idempotency key is bound to: method, path and body (the server hashes the
    /// same three).
    pub fn fingerprint(&self) -> String {
        format!(
            "{:?} {} {}",
            self.method,
            self.path,
            self.body.as_ref().map(Value::to_string).unwrap_or_default()
        )
    }
}

/// The request of `op`, whose allocation, hold or job (and lease token) are `resolved` by the
/// target's [`crate::made::Made`]; `None` for a step that is no request (a clock advance, a
/// sweep).
pub fn of(op: &Op, resolved: &Resolved) -> Option<Request> {
    let (id, token) = (&resolved.id, &resolved.token);
    let post = |path: String, body: Value| Request {
        method: Method::Post,
        path,
        body: Some(body),
        key: op.key(),
    };
    let post_empty = |path: String| Request {
        method: Method::Post,
        path,
        body: None,
        key: op.key(),
    };
    let get = |path: String| Request {
        method: Method::Get,
        path,
        body: None,
        key: None,
    };
    Some(match op {
        Op::CreateSku { sku, on_hand, buckets } => post(
            "/v1/skus".into(),
            json!({"sku": sku, "on_hand": on_hand, "buckets": buckets}),
        ),
        Op::GetSku { sku } => get(format!("/v1/skus/{sku}")),
        Op::Adjust { sku, delta, .. } => post(format!("/v1/skus/{sku}/adjustments"), json!({"delta": delta})),
        Op::Allocate { lines, .. } => post("/v1/allocations".into(), json!({"lines": lines_json(lines)})),
        Op::GetAllocation { .. } => get(format!("/v1/allocations/{id}")),
        Op::Cancel { .. } => post_empty(format!("/v1/allocations/{id}/cancel")),
        Op::Hold { lines, ttl_ms, .. } => post(
            "/v1/holds".into(),
            json!({"lines": lines_json(lines), "ttl_ms": ttl_ms}),
        ),
        Op::GetHold { .. } => get(format!("/v1/holds/{id}")),
        Op::Confirm { part, .. } => {
            let body = match part {
                Some(lines) => json!({"lines": lines_json(lines)}),
                None => json!({}),
            };
            post(format!("/v1/holds/{id}/confirm"), body)
        }
        Op::Release { .. } => post_empty(format!("/v1/holds/{id}/release")),
        Op::Extend { ttl_ms, .. } => post(format!("/v1/holds/{id}/extend"), json!({"ttl_ms": ttl_ms})),
        Op::Audit => get("/v1/audit".into()),
        Op::Enqueue { queue, jobs, .. } => {
            let jobs: Vec<Value> = jobs.iter().map(|j| j.json(crate::run::start())).collect();
            post(format!("/v1/queues/{queue}/jobs"), json!({ "jobs": jobs }))
        }
        Op::Claim {
            queue, max, lease_ms, ..
        } => post(
            format!("/v1/queues/{queue}/claims"),
            json!({"max": max, "lease_ms": lease_ms, "worker": "sim"}),
        ),
        Op::Complete { .. } => post(format!("/v1/jobs/{id}/complete"), json!({ "lease_token": token })),
        Op::Fail { retry_in_ms, .. } => post(
            format!("/v1/jobs/{id}/fail"),
            json!({"lease_token": token, "error": "boom", "retry_in_ms": retry_in_ms}),
        ),
        Op::Heartbeat { lease_ms, .. } => post(
            format!("/v1/jobs/{id}/heartbeat"),
            json!({"lease_token": token, "lease_ms": lease_ms}),
        ),
        Op::CancelJob { .. } => post_empty(format!("/v1/jobs/{id}/cancel")),
        Op::RetryJob { .. } => post_empty(format!("/v1/jobs/{id}/retry")),
        Op::GetQueue { queue } => get(format!("/v1/queues/{queue}")),
        Op::Advance { .. } | Op::Sweep => return None,
    })
}
