//! A server's answer as the simulation compares it with the model's: the status, whether it
//! was a replay, and a view of the body that leaves out what differs by design (ids, the
//! instants a server stamps, versions, the strategy's name, messages, request ids).

use crate::ops::Op;
use serde_json::{json, Value};

/// The view of a body `op` was answered with under `status`.
pub fn of(op: &Op, status: u16, body: &Value) -> Value {
    if status >= 400 {
        return error(body);
    }
    match op {
        Op::CreateSku { .. } | Op::GetSku { .. } | Op::Adjust { .. } => sku(body),
        Op::Allocate { .. } | Op::GetAllocation { .. } | Op::Cancel { .. } | Op::Confirm { .. } => allocation(body),
        Op::Hold { .. } | Op::GetHold { .. } | Op::Release { .. } | Op::Extend { .. } => hold(body),
        Op::Audit => audit(body),
        Op::Advance { .. } => Value::Null,
    }
}

fn error(body: &Value) -> Value {
    let e = &body["error"];
    let mut view = json!({"code": e["code"]});
    if e["code"] == "insufficient_stock" {
        for f in ["sku", "requested", "available"] {
            view[f] = e[f].clone();
        }
    }
    view
}

/// Whether the audit found nothing, and what it found otherwise.
fn audit(body: &Value) -> Value {
    let found: Vec<Value> = ["violations", "job_violations", "booking_overlaps"]
        .iter()
        .filter(|k| body[**k].as_array().is_none_or(|a| !a.is_empty()))
        .map(|k| json!({*k: body[*k]}))
        .collect();
    if found.is_empty() {
        json!({"clean": true})
    } else {
        json!({"clean": false, "found": found})
    }
}

fn sku(body: &Value) -> Value {
    json!({"sku": body["sku"], "on_hand": body["on_hand"], "held": body["held"], "available": body["available"]})
}

/// Lines as `{sku, quantity}` (what came from where is not compared yet).
fn lines(body: &Value) -> Value {
    let lines = body["lines"].as_array().cloned().unwrap_or_default();
    Value::Array(
        lines
            .iter()
            .map(|l| json!({"sku": l["sku"], "quantity": l["quantity"]}))
            .collect(),
    )
}

fn allocation(body: &Value) -> Value {
    json!({"status": body["status"], "lines": lines(body)})
}

fn hold(body: &Value) -> Value {
    let expires_at_us = body["expires_at"]
        .as_str()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.timestamp_micros());
    json!({"status": body["status"], "kind": body["kind"], "lines": lines(body), "expires_at_us": expires_at_us})
}
