//! A server's answer as the simulation compares it with the model's: the status, whether it
//! was a replay, and a view of the body that leaves out what differs by design (ids, the
//! instants a server stamps, versions, the strategy's name, messages, request ids).

use crate::made::Made;
use crate::ops::Op;
use serde_json::{json, Value};

/// The view of a body `op` was answered with under `status`; jobs are named by their place
/// in `made` (noted from this very answer first).
pub fn of(op: &Op, status: u16, body: &Value, made: &Made) -> Value {
    if status >= 400 {
        return error(body);
    }
    match op {
        Op::OtherTenant { op } => of(op, status, body, made),
        Op::CreateSku { .. }
        | Op::GetSku { .. }
        | Op::Adjust { .. }
        | Op::SetLevel { .. }
        | Op::SetBackorderLimit { .. } => sku(body),
        Op::CreateLocation { .. } => json!({"location": body["location"], "priority": body["priority"]}),
        Op::Transfer { .. } => {
            json!({"sku": body["sku"], "from": body["from"], "to": body["to"], "quantity": body["quantity"]})
        }
        Op::AddIncoming { .. } | Op::Receive { .. } => receiving(body),
        Op::Move { .. } => moved(body),
        Op::Allocate { .. } | Op::GetAllocation { .. } | Op::Cancel { .. } | Op::Confirm { .. } => allocation(body),
        Op::Return { .. } => returned(body),
        Op::Hold { .. } | Op::GetHold { .. } | Op::Release { .. } | Op::Extend { .. } => hold(body),
        Op::Audit => audit(body),
        Op::HoldEvents => hold_events(body),
        Op::StockEvents => stock_events(body),
        Op::Enqueue { .. } | Op::Claim { .. } => jobs_of(op, body, made),
        Op::Complete { .. }
        | Op::Fail { .. }
        | Op::Heartbeat { .. }
        | Op::CancelJob { .. }
        | Op::RetryJob { .. }
        | Op::Snooze { .. }
        | Op::Reschedule { .. } => job_status(body, made),
        Op::GetQueue { .. } => json!({"counts": body["counts"]}),
        Op::QueueSettings { .. } | Op::PauseQueue { .. } => settings(body),
        Op::Book { .. }
        | Op::GetBooking { .. }
        | Op::CancelBooking { .. }
        | Op::ConfirmBooking { .. }
        | Op::ReleaseBooking { .. }
        | Op::RescheduleBooking { .. }
        | Op::ExtendBooking { .. } => booking(body),
        Op::Availability { .. } => {
            let free = body["free"].as_array().cloned().unwrap_or_default();
            let gaps: Vec<Value> = free
                .iter()
                .map(|g| json!([instant_us(&g["start"]), instant_us(&g["end"])]))
                .collect();
            json!({ "free": gaps, "slots": slots(&body["slots"]) })
        }
        Op::PutResource { .. } | Op::PutPool { .. } | Op::PutSlots { .. } | Op::Explain { .. } => capacity(op, body),
        Op::ReceiveUnits { .. } => json!({"created": body["created"]}),
        Op::ClaimUnits { .. } => json!({
            "status": body["status"],
            "sku": body["sku"],
            "units": serials(&body["units"]),
            "expires_at_us": instant_us(&body["expires_at"]),
        }),
        Op::GetUnits { .. } => {
            json!({ "units": body["units"].as_array().into_iter().flatten().map(unit).collect::<Vec<_>>() })
        }
        Op::GetUnit { .. } => unit(body),
        Op::PutKit { .. } | Op::GetKit { .. } => body.clone(),
        Op::CreateSchedule { .. } | Op::PauseSchedule { .. } => schedule(body),
        Op::ListSchedules => {
            let all = body["schedules"].as_array().cloned().unwrap_or_default();
            json!({ "schedules": all.iter().map(schedule).collect::<Vec<_>>() })
        }
        // A batch's results are viewed one by one (`Target::step_batch`); a delete answers 204.
        Op::Advance { .. } | Op::Sweep | Op::RunSchedules | Op::DeleteSchedule { .. } | Op::Batch { .. } => Value::Null,
    }
}

/// A queue's settings.
fn settings(body: &Value) -> Value {
    json!({
        "paused": body["paused"],
        "max_running": body["max_running"],
        "max_running_per_key": body["max_running_per_key"],
        "rate": body["rate"],
        "fifo_per_key": body["fifo_per_key"],
        "keep_completed": body["keep_completed"],
        "fair_by": body["fair_by"],
        "weights": body["weights"],
        "events": body["events"],
    })
}

/// The answers of the capacity steps.
fn capacity(op: &Op, body: &Value) -> Value {
    match op {
        Op::PutResource { .. } => json!({
            "capacity": body["capacity"],
            "slot_us": body["slot_ms"].as_i64().map(|ms| ms * 1000),
            "pools": body["pools"],
        }),
        Op::PutPool { .. } => {
            json!({"capacity": body["capacity"], "slot_us": body["slot_ms"].as_i64().map(|ms| ms * 1000)})
        }
        Op::PutSlots { .. } => json!({"slots": slots(&body["slots"])}),
        Op::Explain { .. } => {
            let mut reasons = body["reasons"].as_array().cloned().unwrap_or_default();
            reasons.iter_mut().for_each(crate::model::capacity::normalise_reason);
            json!({"bookable": body["bookable"], "reasons": reasons})
        }
        _ => Value::Null,
    }
}

/// A schedule as an answer shows it, its instants as µs since the epoch.
pub fn schedule(s: &Value) -> Value {
    let then = s["then"].as_array().cloned().unwrap_or_default();
    json!({
        "name": s["name"], "cron": s["cron"], "timezone": s["timezone"], "queue": s["queue"],
        "job": s["job"], "missed": s["missed"], "paused": s["paused"],
        "next_run_at_us": instant_us(&s["next_run_at"]),
        "last_run_at_us": instant_us(&s["last_run_at"]),
        "then_us": then.iter().map(instant_us).collect::<Vec<_>>(),
    })
}

/// A unit as a listing or a lookup shows it: whether a claim has it, not which.
fn unit(u: &Value) -> Value {
    json!({"serial": u["serial"], "location": u["location"], "lot": u["lot"],
           "status": u["status"], "claimed": !u["claim_id"].is_null()})
}

/// The serials of a list of units, in its order.
fn serials(units: &Value) -> Value {
    let units = units.as_array().cloned().unwrap_or_default();
    Value::Array(units.iter().map(|u| u["serial"].clone()).collect())
}

/// An instant of the body as µs since the epoch (`null` when absent).
fn instant_us(v: &Value) -> Value {
    json!(v
        .as_str()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.timestamp_micros()))
}

/// Slots of an availability answer: `[start, end, capacity, used, held, free]` each (`null`
/// for a resource without slots).
fn slots(v: &Value) -> Value {
    match v.as_array() {
        None => Value::Null,
        Some(a) => Value::Array(
            a.iter()
                .map(|s| {
                    json!([
                        instant_us(&s["start"]),
                        instant_us(&s["end"]),
                        s["capacity"],
                        s["used"],
                        s["held"],
                        s["free"]
                    ])
                })
                .collect(),
        ),
    }
}

fn booking(body: &Value) -> Value {
    json!({
        "resource": body["resource"],
        "start_us": instant_us(&body["start"]),
        "end_us": instant_us(&body["end"]),
        "quantity": body["quantity"],
        "status": body["status"],
        "expires_at_us": instant_us(&body["expires_at"]),
    })
}

fn leased(j: &Value, made: &Made) -> Value {
    json!({
        "job": made.job_place(j["id"].as_i64().unwrap_or(0)),
        "attempt": j["attempt"],
        "max_attempts": j["max_attempts"],
        "priority": j["priority"],
        "lease_expires_at_us": instant_us(&j["lease_expires_at"]),
        "batch": j["payload"]["batch"],
    })
}

/// A job a scheduler pass made, as its queue's listing shows it (`made` has noted it).
pub fn made_job(j: &Value, made: &Made) -> Value {
    json!({
        "job": made.job_place(j["id"].as_i64().unwrap_or(0)),
        "queue": j["queue"],
        "state": j["state"],
        "priority": j["priority"],
        "max_attempts": j["max_attempts"],
        "partition_key": j["partition_key"],
        "unique_key": j["unique_key"],
        "run_at_us": instant_us(&j["run_at"]),
    })
}

fn job_status(body: &Value, made: &Made) -> Value {
    json!({
        "job": made.job_place(body["id"].as_i64().unwrap_or(0)),
        "state": body["state"],
        "attempt": body["attempt"],
        "run_at_us": instant_us(&body["run_at"]),
        "lease_expires_at_us": instant_us(&body["lease_expires_at"]),
    })
}

fn error(body: &Value) -> Value {
    let e = &body["error"];
    let mut view = json!({"code": e["code"]});
    if [
        "insufficient_stock",
        "exceeds_allocation",
        "exceeds_incoming",
        "exceeds_state",
    ]
    .iter()
    .any(|c| e["code"] == *c)
    {
        for f in ["sku", "requested", "available"] {
            view[f] = e[f].clone();
        }
    }
    let booking = ["booking_overlap", "capacity_exceeded", "rule_violated", "needs_slots"];
    if booking.iter().any(|c| e["code"] == *c) && !e["line"].is_null() {
        view["line"] = e["line"].clone();
    }
    if e["code"] == "capacity_exceeded" || e["code"] == "rule_violated" {
        let mut reason = e["reason"].clone();
        crate::model::capacity::normalise_reason(&mut reason);
        view["reason"] = reason;
    }
    view
}

/// The most hold events [`Op::HoldEvents`] reads (one page; the model keeps as many).
pub const HOLD_EVENTS_PAGE: usize = 1000;

/// A hold's own events as compared: each hold's events in the feed's order (its type, the
/// hold's kind and status it names, its lines' (SKU, quantity), how many booking lines it
/// has), the holds as a sorted list. Holds
/// are told apart by their histories, not by their order: the operations of one batch on
/// `batched` lanes commit in the order the lanes flush, not the order listed.
fn hold_events(body: &Value) -> Value {
    let events = body["events"].as_array().cloned().unwrap_or_default();
    let said: Vec<(String, Value)> = events
        .iter()
        .map(|e| {
            let id = e["object"].as_str().unwrap_or_default().to_string();
            let lines: Vec<(String, i64)> = e["data"]["lines"]
                .as_array()
                .map(|ls| {
                    ls.iter()
                        .map(|l| {
                            (
                                l["sku"].as_str().unwrap_or_default().to_string(),
                                l["quantity"].as_i64().unwrap_or(0),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let bookings = e["data"]["bookings"].as_array().map_or(0, Vec::len);
            let text = |k: &str| e["data"][k].as_str().unwrap_or_default().to_string();
            let (kind, status) = (text("kind"), text("status"));
            let named = (e["type"].as_str().unwrap_or_default(), kind.as_str(), status.as_str());
            (id, hold_event(named, &lines, bookings))
        })
        .collect();
    by_hold(said)
}

/// A move's view: all it says but its id.
fn moved(body: &Value) -> Value {
    let mut view = body.clone();
    if let Some(m) = view.as_object_mut() {
        m.remove("id");
    }
    view
}

/// [`Op::StockEvents`]'s view: each event as [`stock_event`] shapes it, in the feed's order.
fn stock_events(body: &Value) -> Value {
    let events = body["events"].as_array().cloned().unwrap_or_default();
    let viewed: Vec<Value> = events
        .iter()
        .map(|e| {
            let d = &e["data"];
            stock_event(
                e["type"].as_str().unwrap_or_default(),
                (d["sku"].as_str().unwrap_or_default(), d["location"].as_str()),
                d["delta"].as_i64().unwrap_or(0),
                (d["reason"].as_str().unwrap_or_default(), d["reference"].as_str()),
            )
        })
        .collect();
    json!(viewed)
}

/// One stock event as the simulation compares it: its type, SKU and location, the change of
/// the sellable part of on hand, why and the document behind it.
pub fn stock_event(kind: &str, (sku, location): (&str, Option<&str>), delta: i64, said: (&str, Option<&str>)) -> Value {
    json!({"type": kind, "sku": sku, "location": location, "delta": delta, "reason": said.0, "reference": said.1})
}

/// One hold event's view ([`hold_events`]): its type, the hold's kind and status it names,
/// its lines and how many bookings.
pub fn hold_event((kind, of, status): (&str, &str, &str), lines: &[(String, i64)], bookings: usize) -> Value {
    let mut lines = lines.to_vec();
    lines.sort();
    json!({"type": kind, "kind": of, "status": status, "lines": lines, "bookings": bookings})
}

/// Events `(hold id, view)` in order, as each hold's history, the histories sorted.
pub fn by_hold(events: Vec<(String, Value)>) -> Value {
    let mut holds: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for (id, e) in events {
        holds.entry(id).or_default().push(e);
    }
    let mut histories: Vec<Value> = holds.into_values().map(Value::Array).collect();
    histories.sort_by_cached_key(Value::to_string);
    json!({ "holds": histories })
}

/// Whether the audit found nothing, and what it found otherwise.
fn audit(body: &Value) -> Value {
    let found: Vec<Value> = ["violations", "job_violations", "booking_overlaps", "slot_overbookings"]
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

/// An incoming's or a receipt's answer (the incoming a receipt names: only whether it names one).
fn receiving(body: &Value) -> Value {
    let mut view = json!({"sku": body["sku"], "location": body["location"], "quantity": body["quantity"]});
    match body.get("received") {
        Some(received) => {
            view["received"] = received.clone();
            view["reference"] = body["reference"].clone();
        }
        None => view["names_incoming"] = json!(body["incoming_id"].is_string()),
    }
    view
}

/// A SKU: its totals and its levels by location.
/// An enqueue's jobs by their place in `made`; a claim's leased jobs.
fn jobs_of(op: &Op, body: &Value, made: &Made) -> Value {
    if let Op::Enqueue { .. } = op {
        let ids = body["ids"].as_array().cloned().unwrap_or_default();
        let mut view =
            json!({"jobs": ids.iter().map(|id| made.job_place(id.as_i64().unwrap_or(0))).collect::<Vec<_>>()});
        if let Some(cb) = body["batch"]["callback_id"].as_i64() {
            view["batch"] = json!({"id": body["batch"]["id"], "callback": made.job_place(cb)});
        }
        return view;
    }
    let jobs = body["jobs"].as_array().cloned().unwrap_or_default();
    json!({"jobs": jobs.iter().map(|j| leased(j, made)).collect::<Vec<_>>()})
}

fn sku(body: &Value) -> Value {
    let levels = body["levels"].as_array().cloned().unwrap_or_default();
    let levels: Vec<Value> = levels
        .iter()
        .map(|l| {
            json!({"location": l["location"], "on_hand": l["on_hand"], "held": l["held"], "available": l["available"],
                "incoming": l["incoming"], "damaged": l["damaged"], "quality_control": l["quality_control"],
                "safety_stock": l["safety_stock"]})
        })
        .collect();
    json!({"sku": body["sku"], "on_hand": body["on_hand"], "held": body["held"], "available": body["available"],
        "incoming": body["incoming"], "damaged": body["damaged"], "quality_control": body["quality_control"],
        "safety_stock": body["safety_stock"], "levels": levels,
        "backorder_limit": body["backorder_limit"].as_i64().unwrap_or(0),
        "backordered": body["backordered"].as_i64().unwrap_or(0)})
}

/// A line's `from`: `(location, quantity)` in the order answered.
fn from(line: &Value) -> Value {
    let from = line["from"].as_array().cloned().unwrap_or_default();
    Value::Array(
        from.iter()
            .map(|s| json!({"location": s["location"], "quantity": s["quantity"]}))
            .collect(),
    )
}

/// Lines as `{sku, quantity, from}`.
fn lines(body: &Value) -> Value {
    let lines = body["lines"].as_array().cloned().unwrap_or_default();
    Value::Array(
        lines
            .iter()
            .map(|l| json!({"sku": l["sku"], "quantity": l["quantity"], "from": from(l)}))
            .collect(),
    )
}

/// An allocation: its status and lines, each with how much came back (absent: none).
fn allocation(body: &Value) -> Value {
    let lines = body["lines"].as_array().cloned().unwrap_or_default();
    let lines: Vec<Value> = lines
        .iter()
        .map(|l| {
            json!({"sku": l["sku"], "quantity": l["quantity"], "returned": l["returned"].as_i64().unwrap_or(0),
                "from": from(l), "backordered": l["backordered"]})
        })
        .collect();
    json!({"status": body["status"], "lines": lines})
}

/// A return: its lines as made (SKU order).
fn returned(body: &Value) -> Value {
    let lines = body["lines"].as_array().cloned().unwrap_or_default();
    let lines: Vec<Value> = lines
        .iter()
        .map(|l| json!({"sku": l["sku"], "quantity": l["quantity"], "state": l["state"], "location": l["location"]}))
        .collect();
    json!({ "lines": lines })
}

/// A hold; a hold with units that is held or confirmed lists their serials (others are not
/// compared: what an expired or released hold still names is the store's business).
fn hold(body: &Value) -> Value {
    let mut view = json!({"status": body["status"], "kind": body["kind"], "lines": lines(body), "expires_at_us": instant_us(&body["expires_at"])});
    let has_units = body["kind"] == "units" || body["kind"] == "mixed";
    if has_units && (body["status"] == "held" || body["status"] == "confirmed") {
        view["units"] = serials(&body["units"]);
    }
    if let Some(bookings) = body["bookings"].as_array() {
        view["bookings"] = bookings.iter().map(booking).collect();
    }
    view
}
