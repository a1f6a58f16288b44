//! Each step as the HTTP request a client sends (the API's paths and bodies), once its
//! references are resolved to a target's ids.

use crate::made::Resolved;
use crate::ops::{lines_json, window_at, Op, WINDOW_HOURS};
use serde_json::{json, Value};

/// GET, POST, PUT or DELETE: all the simulation sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// A read.
    Get,
    /// A write.
    Post,
    /// A booking's cancel.
    Delete,
    /// A queue's settings.
    Put,
    /// A SKU's settings.
    Patch,
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
    /// Sent with the key of [`crate::ops::OTHER_TENANT`] (else the `default` tenant's).
    pub other_tenant: bool,
}

impl Request {
    /// `GET path` with the `default` tenant's key.
    pub fn get(path: String) -> Request {
        Request {
            method: Method::Get,
            path,
            body: None,
            key: None,
            other_tenant: false,
        }
    }

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

/// The request of `op`, whose allocation, hold, booking or job (and lease token) are
/// `resolved` by the target's [`crate::made::Made`]; `None` for a step that is no request (a
/// clock advance, a sweep).
pub fn of(op: &Op, resolved: &Resolved) -> Option<Request> {
    let r = Requests { key: op.key() };
    let id = &resolved.id;
    Some(match op {
        // A batch is sent by [`batch`], its operations resolved one by one.
        Op::Advance { .. } | Op::Sweep | Op::RunSchedules | Op::Batch { .. } => return None,
        Op::OtherTenant { op } => {
            let mut req = of(op, resolved)?;
            req.other_tenant = true;
            req
        }
        Op::Enqueue { .. }
        | Op::Claim { .. }
        | Op::Complete { .. }
        | Op::Fail { .. }
        | Op::Heartbeat { .. }
        | Op::CancelJob { .. }
        | Op::RetryJob { .. }
        | Op::Snooze { .. }
        | Op::Reschedule { .. }
        | Op::GetQueue { .. }
        | Op::QueueSettings { .. }
        | Op::PauseQueue { .. } => job(&r, op, resolved),
        Op::CreateSchedule { .. } | Op::ListSchedules | Op::DeleteSchedule { .. } | Op::PauseSchedule { .. } => {
            schedule(&r, op)
        }
        Op::Book { .. }
        | Op::GetBooking { .. }
        | Op::CancelBooking { .. }
        | Op::ConfirmBooking { .. }
        | Op::ReleaseBooking { .. }
        | Op::ExtendBooking { .. }
        | Op::RescheduleBooking { .. }
        | Op::PutResource { .. }
        | Op::PutPool { .. }
        | Op::PutSlots { .. }
        | Op::Explain { .. }
        | Op::Availability { .. } => booking(&r, op, id),
        Op::ReceiveUnits { .. } | Op::ClaimUnits { .. } | Op::GetUnits { .. } | Op::GetUnit { .. } => units(&r, op),
        Op::CreateLocation { .. } | Op::Transfer { .. } | Op::SetLevel { .. } => places(&r, op),
        Op::PutKit { kit, components } => {
            let components: Vec<Value> = components
                .iter()
                .map(|(sku, q)| json!({"sku": sku, "quantity": q}))
                .collect();
            r.with(
                Method::Put,
                format!("/v1/kits/{kit}"),
                Some(json!({ "components": components })),
            )
        }
        Op::GetKit { kit } => r.get(format!("/v1/kits/{kit}")),
        Op::SetBackorderLimit { sku, limit } => r.with(
            Method::Patch,
            format!("/v1/skus/{sku}"),
            Some(json!({ "backorder_limit": limit })),
        ),
        Op::AddIncoming { .. } | Op::Receive { .. } | Op::Move { .. } => receiving(&r, op, id),
        _ => stock(&r, op, id),
    })
}

/// `POST /v1/batch` of `ops`, each resolved (`resolved[i]`) and shaped as the request it would
/// be alone: the same body (so that its key is fingerprinted as that request's), the id from
/// its path, its key in the operation.
pub fn batch(ops: &[Op], resolved: &[Resolved]) -> Request {
    let operations: Vec<Value> = ops
        .iter()
        .zip(resolved)
        .filter_map(|(op, r)| {
            let alone = of(op, r)?;
            let name = match op {
                Op::Allocate { .. } => "allocate",
                Op::Hold { .. } => "hold",
                Op::Confirm { .. } => "confirm",
                Op::Release { .. } => "release",
                _ => "cancel",
            };
            let mut o = json!({ "op": name });
            if !matches!(op, Op::Allocate { .. } | Op::Hold { .. }) {
                o["id"] = json!(r.id);
            }
            if let Some(body) = alone.body {
                o["body"] = body;
            }
            if let Some(key) = alone.key {
                o["idempotency_key"] = json!(key);
            }
            Some(o)
        })
        .collect();
    Request {
        method: Method::Post,
        path: "/v1/batch".into(),
        body: Some(json!({ "operations": operations })),
        key: None,
        other_tenant: false,
    }
}

/// The three shapes of request, under the step's idempotency key.
struct Requests {
    key: Option<&'static str>,
}

impl Requests {
    fn with(&self, method: Method, path: String, body: Option<Value>) -> Request {
        let key = if method == Method::Get { None } else { self.key };
        Request {
            method,
            path,
            body,
            key,
            other_tenant: false,
        }
    }

    fn post(&self, path: String, body: Value) -> Request {
        self.with(Method::Post, path, Some(body))
    }

    fn post_empty(&self, path: String) -> Request {
        self.with(Method::Post, path, None)
    }

    fn get(&self, path: String) -> Request {
        self.with(Method::Get, path, None)
    }
}

/// [`Op::HoldEvents`]'s request: a page of the hold events it compares.
const HOLD_EVENTS: &str = "/v1/events?types=hold.created,hold.confirmed,hold.released&limit={limit}";

/// [`Op::StockEvents`]'s request: a page of the stock events it compares.
const STOCK_EVENTS: &str = "/v1/events?types=stock.adjusted,stock.received,stock.moved,transfer.created&limit={limit}";

/// The page of the feed [`Op::HoldEvents`] or [`Op::StockEvents`] compares.
fn feed(r: &Requests, op: &Op) -> Request {
    let path = if *op == Op::HoldEvents {
        HOLD_EVENTS
    } else {
        STOCK_EVENTS
    };
    r.get(path.replace("{limit}", &crate::view::HOLD_EVENTS_PAGE.to_string()))
}

/// `body` with the reason and reference `op` names ([`crate::ops::said`]).
fn with_said(mut body: Value, op: &Op) -> Value {
    let (reason, reference) = crate::ops::said(op);
    if let Some(r) = reason {
        body["reason"] = json!(r);
    }
    if let Some(r) = reference {
        body["reference"] = json!(r);
    }
    body
}

fn stock(r: &Requests, op: &Op, id: &str) -> Request {
    match op {
        Op::CreateSku {
            sku,
            on_hand,
            buckets,
            location,
        } => {
            let mut body = json!({"sku": sku, "on_hand": on_hand, "buckets": buckets});
            if let Some(l) = location {
                body["location"] = json!(l);
            }
            r.post("/v1/skus".into(), body)
        }
        Op::Adjust {
            sku, delta, location, ..
        } => {
            let mut body = json!({ "delta": delta });
            if let Some(l) = location {
                body["location"] = json!(l);
            }
            r.post(format!("/v1/skus/{sku}/adjustments"), with_said(body, op))
        }
        Op::Allocate { lines, place, .. } => {
            let mut body = json!({"lines": lines_json(lines)});
            place.apply(&mut body);
            r.post("/v1/allocations".into(), body)
        }
        Op::GetAllocation { .. } => r.get(format!("/v1/allocations/{id}")),
        Op::Cancel { .. } => r.post_empty(format!("/v1/allocations/{id}/cancel")),
        Op::Return { lines, location, .. } => {
            let lines: Vec<Value> = lines
                .iter()
                .map(|(sku, q, damaged)| {
                    let state = if *damaged { "damaged" } else { "sellable" };
                    let mut line = json!({"sku": sku, "quantity": q, "state": state});
                    if let Some(l) = location {
                        line["location"] = json!(l);
                    }
                    line
                })
                .collect();
            r.post(format!("/v1/allocations/{id}/returns"), json!({ "lines": lines }))
        }
        Op::Hold {
            lines,
            units,
            bookings,
            ttl_ms,
            place,
            ..
        } => {
            let mut body = json!({"lines": hold_lines_json(lines, units, bookings), "ttl_ms": ttl_ms});
            place.apply(&mut body);
            r.post("/v1/holds".into(), body)
        }
        Op::GetHold { .. } => r.get(format!("/v1/holds/{id}")),
        Op::Confirm { part, .. } => {
            let body = match part {
                Some(part) => json!({"lines": confirm_lines_json(id, part)}),
                None => json!({}),
            };
            r.post(format!("/v1/holds/{id}/confirm"), body)
        }
        Op::Release { .. } => r.post_empty(format!("/v1/holds/{id}/release")),
        Op::Extend { ttl_ms, .. } => r.post(format!("/v1/holds/{id}/extend"), json!({"ttl_ms": ttl_ms})),
        Op::Audit => r.get("/v1/audit".into()),
        Op::HoldEvents | Op::StockEvents => feed(r, op),
        Op::GetSku { sku } => r.get(format!("/v1/skus/{sku}")),
        _ => unreachable!("not a stock step: {op:?}"),
    }
}

fn places(r: &Requests, op: &Op) -> Request {
    match op {
        Op::CreateLocation { location, priority } => r.post(
            "/v1/locations".into(),
            json!({"location": location, "priority": priority}),
        ),
        Op::Transfer {
            sku,
            from,
            to,
            quantity,
            ..
        } => r.post(
            "/v1/transfers".into(),
            with_said(json!({"sku": sku, "from": from, "to": to, "quantity": quantity}), op),
        ),
        Op::SetLevel {
            sku,
            location,
            on_hand,
            compare_on_hand,
            ..
        } => r.post(
            format!("/v1/skus/{sku}/levels/{location}"),
            with_said(json!({"on_hand": on_hand, "compare_on_hand": compare_on_hand}), op),
        ),
        _ => unreachable!("not a step on locations: {op:?}"),
    }
}

fn receiving(r: &Requests, op: &Op, id: &str) -> Request {
    match op {
        Op::AddIncoming {
            sku,
            quantity,
            location,
            ..
        } => {
            let mut body = json!({"quantity": quantity, "reference": "erp://po/sim"});
            if let Some(l) = location {
                body["location"] = json!(l);
            }
            r.post(format!("/v1/skus/{sku}/incoming"), body)
        }
        Op::Receive {
            sku,
            quantity,
            incoming,
            location,
            ..
        } => {
            let mut body = json!({ "quantity": quantity });
            if incoming.is_some() {
                body["incoming_id"] = json!(id);
            }
            if let Some(l) = location {
                body["location"] = json!(l);
            }
            r.post(format!("/v1/skus/{sku}/receipts"), with_said(body, op))
        }
        Op::Move {
            sku,
            from,
            to,
            quantity,
            location,
            ..
        } => {
            let mut body = json!({"from": from, "to": to, "quantity": quantity});
            if let Some(l) = location {
                body["location"] = json!(l);
            }
            r.post(format!("/v1/skus/{sku}/moves"), with_said(body, op))
        }
        _ => unreachable!("not a step on receiving: {op:?}"),
    }
}

fn job(r: &Requests, op: &Op, resolved: &Resolved) -> Request {
    let (id, token) = (&resolved.id, &resolved.token);
    match op {
        Op::Enqueue { queue, jobs, batch, .. } => {
            let none = Vec::new();
            let jobs: Vec<Value> = jobs
                .iter()
                .enumerate()
                .map(|(i, j)| j.json(crate::ops::start(), resolved.depends_on.get(i).unwrap_or(&none)))
                .collect();
            let mut body = json!({ "jobs": jobs });
            if let Some(id) = batch {
                body["batch"] = json!({"id": id, "callback": {"payload": {"callback": true}}});
            }
            r.post(format!("/v1/queues/{queue}/jobs"), body)
        }
        Op::Claim {
            queue, max, lease_ms, ..
        } => r.post(
            format!("/v1/queues/{queue}/claims"),
            json!({"max": max, "lease_ms": lease_ms, "worker": "sim"}),
        ),
        Op::Complete { .. } => r.post(format!("/v1/jobs/{id}/complete"), json!({ "lease_token": token })),
        Op::Fail { retry_in_ms, .. } => r.post(
            format!("/v1/jobs/{id}/fail"),
            json!({"lease_token": token, "error": "boom", "retry_in_ms": retry_in_ms}),
        ),
        Op::Heartbeat { lease_ms, .. } => r.post(
            format!("/v1/jobs/{id}/heartbeat"),
            json!({"lease_token": token, "lease_ms": lease_ms}),
        ),
        Op::CancelJob { .. } => r.post_empty(format!("/v1/jobs/{id}/cancel")),
        Op::Snooze { delay_ms, .. } => r.post(
            format!("/v1/jobs/{id}/snooze"),
            json!({"lease_token": token, "delay_ms": delay_ms}),
        ),
        Op::Reschedule { delay_ms, .. } => r.post(format!("/v1/jobs/{id}/reschedule"), json!({ "delay_ms": delay_ms })),
        Op::RetryJob { .. } => r.post_empty(format!("/v1/jobs/{id}/retry")),
        Op::GetQueue { queue } => r.get(format!("/v1/queues/{queue}")),
        Op::QueueSettings { queue, settings } => {
            r.with(Method::Put, format!("/v1/queues/{queue}"), Some(settings.json()))
        }
        Op::PauseQueue { queue, pause } => {
            let what = if *pause { "pause" } else { "resume" };
            r.post_empty(format!("/v1/queues/{queue}/{what}"))
        }
        _ => unreachable!("not a job step: {op:?}"),
    }
}

fn schedule(r: &Requests, op: &Op) -> Request {
    match op {
        Op::CreateSchedule { schedule } => r.post("/v1/schedules".into(), schedule.json()),
        Op::ListSchedules => r.get("/v1/schedules".into()),
        Op::DeleteSchedule { name } => r.with(Method::Delete, format!("/v1/schedules/{name}"), None),
        Op::PauseSchedule { name, pause } => {
            let what = if *pause { "pause" } else { "resume" };
            r.post_empty(format!("/v1/schedules/{name}/{what}"))
        }
        _ => unreachable!("not a schedule step: {op:?}"),
    }
}

fn units(r: &Requests, op: &Op) -> Request {
    match op {
        Op::ReceiveUnits { sku, units, .. } => {
            let units: Vec<Value> = units.iter().map(crate::ops::NewUnit::json).collect();
            r.post(format!("/v1/skus/{sku}/units"), json!({ "units": units }))
        }
        Op::ClaimUnits {
            sku,
            quantity,
            order_by,
            allow_partial,
            hold_ttl_ms,
            ..
        } => {
            let mut body =
                json!({"sku": sku, "quantity": quantity, "order_by": order_by, "allow_partial": allow_partial});
            if let Some(ttl) = hold_ttl_ms {
                body["hold_ttl_ms"] = json!(ttl);
            }
            r.post("/v1/unit-allocations".into(), body)
        }
        Op::GetUnits { sku } => r.get(format!("/v1/skus/{sku}/units?limit={}", crate::ops::SERIALS + 1)),
        Op::GetUnit { sku, serial } => r.get(format!("/v1/skus/{sku}/units/S{serial}")),
        _ => unreachable!("not a unit step: {op:?}"),
    }
}

fn booking(r: &Requests, op: &Op, id: &str) -> Request {
    match op {
        Op::Book {
            resource,
            start_h,
            hours,
            quantity,
            hold_ttl_ms,
            ..
        } => {
            let mut body = json!({"start": window_at(*start_h), "end": window_at(start_h + hours), "holder": "sim"});
            if *quantity != 1 {
                body["quantity"] = json!(quantity);
            }
            if let Some(ttl) = hold_ttl_ms {
                body["hold_ttl_ms"] = json!(ttl);
            }
            r.post(format!("/v1/resources/{resource}/bookings"), body)
        }
        Op::GetBooking { .. } => r.get(format!("/v1/bookings/{id}")),
        Op::CancelBooking { .. } => r.with(Method::Delete, format!("/v1/bookings/{id}"), None),
        Op::ConfirmBooking { .. } => r.post_empty(format!("/v1/bookings/{id}/confirm")),
        Op::ReleaseBooking { .. } => r.post_empty(format!("/v1/bookings/{id}/release")),
        Op::ExtendBooking { ttl_ms, .. } => r.post(format!("/v1/bookings/{id}/extend"), json!({"ttl_ms": ttl_ms})),
        Op::Availability { resource } => r.get(format!(
            "/v1/resources/{resource}/availability?from={}&to={}",
            window_at(0),
            window_at(WINDOW_HOURS)
        )),
        _ => capacity(r, op, id),
    }
}

fn capacity(r: &Requests, op: &Op, id: &str) -> Request {
    match op {
        Op::RescheduleBooking {
            start_h,
            hours,
            quantity,
            ..
        } => {
            let mut body = json!({"start": window_at(*start_h), "end": window_at(start_h + hours)});
            if let Some(q) = quantity {
                body["quantity"] = json!(q);
            }
            r.post(format!("/v1/bookings/{id}/reschedule"), body)
        }
        Op::PutResource { resource, put } => r.with(Method::Put, format!("/v1/resources/{resource}"), Some(put.json())),
        Op::PutPool {
            pool,
            capacity,
            slot_hours,
        } => r.with(
            Method::Put,
            format!("/v1/pools/{pool}"),
            Some(json!({"capacity": capacity, "slot_ms": slot_hours * 3_600_000})),
        ),
        Op::PutSlots {
            resource,
            from_h,
            to_h,
            capacity,
        } => r.with(
            Method::Put,
            format!("/v1/resources/{resource}/slots"),
            Some(json!({"from": window_at(*from_h), "to": window_at(*to_h), "capacity": capacity})),
        ),
        Op::Explain {
            resource,
            start_h,
            hours,
            quantity,
        } => r.get(format!(
            "/v1/resources/{resource}/explain?start={}&end={}&quantity={quantity}",
            window_at(*start_h),
            window_at(start_h + hours)
        )),
        _ => unreachable!("not a booking step: {op:?}"),
    }
}

/// A partial confirm's lines of hold `id`: its SKU lines, then its booking lines by id (the
/// id each target gave the hold's booking line of that index).
fn confirm_lines_json(id: &str, part: &crate::ops::Part) -> Value {
    let mut all = lines_json(&part.lines);
    if let Value::Array(a) = &mut all {
        a.extend(
            part.bookings
                .iter()
                .map(|i| json!({"booking": allot_core::hold::booking_id(id, *i)})),
        );
    }
    all
}

/// A hold's lines: its stock lines, then its unit lines (`{"units":{"sku","quantity"}}`).
fn hold_lines_json(
    lines: &[(&str, i64)],
    units: &[crate::ops::HoldUnits],
    bookings: &[crate::ops::HoldBooking],
) -> Value {
    let mut all = lines_json(lines);
    if let Value::Array(a) = &mut all {
        a.extend(units.iter().map(|(sku, q, serials)| {
            let mut line = json!({"sku": sku, "quantity": q});
            if let Some(serials) = serials {
                line["serials"] = serials.iter().map(|n| format!("S{n}")).collect();
            }
            json!({ "units": line })
        }));
        a.extend(bookings.iter().map(|(resource, start_h, hours, q)| {
            json!({"booking": {"resource": resource, "start": window_at(*start_h),
                               "end": window_at(start_h + hours), "quantity": q}})
        }));
    }
    all
}
