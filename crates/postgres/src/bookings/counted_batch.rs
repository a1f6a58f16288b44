//! `batched` bookings of put resources (capacity, slots, pools): a sold-out session is a hot
//! row, so concurrent bookings of one resource's slots are decided together, as the stock
//! lanes do (flat combining, Hendler et al., SPAA 2010). A lane's batch — up to
//! `batch_max_requests` (at most [`MAX_BATCH_BOOKINGS`]) — is one transaction:
//!
//! 1. the advisory locks of every resource in it (ascending), then of every pool they are in
//!    (ascending): the one order of `capacity.rs` — every resource before any pool — so a batch
//!    and a per-request booking never wait on each other in a cycle;
//! 2. one picture per resource over the span of all its requests, read under the locks;
//! 3. the decision of each request in arrival order by `allot_core::booking::judge`, every
//!    booking made earlier in the batch counted in every picture (so two requests of one
//!    pool through two resources see each other);
//! 4. one insert of everything made, the slots' fill announced per resource (`announce.rs`),
//!    then the commit.
//!
//! Each request gets its own answer: made, or refused with its own reason. A batch that fails
//! before its commit sends each of its requests down the per-request path; a commit of
//! unknown outcome is `503 outcome_unknown` for the bookings it made. A keyed booking always
//! runs on the per-request path.

use super::{capacity, resource_key};
use crate::engine::conn::{Db, Tx};
use crate::engine::store::PgStore;
use crate::engine::tx::TxResult;
use allot_core::booking::capacity::check_quantity;
use allot_core::booking::fill;
use allot_core::booking::judge::{judge, refusal, Ask, Picture};
use allot_core::{AllotError, Booking, BookingRequest, Capable, Result};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Lanes of capacity batches per instance, beside the plain bookings' (their lane numbers
/// follow those).
const LANES: u64 = 4;
/// The first lane number of capacity batches on the shared queues.
const FIRST_LANE: usize = 1000;

/// Most bookings in one batch.
const MAX_BATCH_BOOKINGS: usize = 64;

type Item = (String, BookingRequest);

/// A half-open range of instants.
type Span = (DateTime<Utc>, DateTime<Utc>);

/// Insert every booking made (`$1..$11`, `$11` the slots each takes or NULL; `$12` now).
const SQL_INSERT_MANY: &str =
    "INSERT INTO bookings (tenant, id, resource, during, holder, metadata, status, strategy, expires_at, created_at,
                           quantity, slotted, counted, slots)
     SELECT t, id, resource, tstzrange(s, e, '[)'), holder, metadata, status, 'batched', expires_at, $12, q,
            sl IS NOT NULL, true, sl
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::text[],
                   $7::json[], $8::text[], $9::timestamptz[], $10::int4[], $11::json[])
         AS r(t, id, resource, s, e, holder, metadata, status, expires_at, q, sl)";

impl PgStore {
    /// Book on a put resource through its lane's batch: `Some` when the batch made it, its
    /// refusal when it refused it, `None` when it is to run on the per-request path.
    pub(super) async fn book_counted_batched(&self, tenant: &str, req: BookingRequest) -> Result<Option<Booking>> {
        let lane = FIRST_LANE + (resource_key(tenant, &req.resource) as u64 % LANES) as usize;
        let joined = self.booking_batches.join(
            &lane,
            (tenant.to_string(), req),
            (self.limits.batch_max_queued / (2 * LANES) as usize).max(1),
            "booking",
        )?;
        if joined.start {
            tokio::spawn(run_lane(self.clone(), lane));
        }
        joined.answer("booking").await
    }
}

async fn run_lane(store: PgStore, lane: usize) {
    let max = store.limits.batch_max_requests.min(MAX_BATCH_BOOKINGS);
    let decide = |items: Vec<Item>, go: crate::engine::flat::Go| {
        let store = store.clone();
        async move {
            let _go = go;
            run_batch(&store, &items).await
        }
    };
    store
        .booking_batches
        .run((&lane, "capacity bookings"), (max, 1), decide)
        .await;
}

/// One batch: each request's answer.
async fn run_batch(store: &PgStore, items: &[Item]) -> Vec<Result<Option<Booking>>> {
    let verdicts: Mutex<Vec<Result<Booking>>> = Mutex::new(Vec::new());
    let written = store
        .write("", None, async |tx| {
            let (v, now, pictures) = decide_all(store, tx, items).await?;
            let (inserted, seen) = tokio::join!(insert_made(tx, items, &v, now), announced_all(tx, &pictures));
            inserted?;
            for ((t, p, cover), seen) in pictures.iter().zip(seen?) {
                super::announce::announce(tx, t, p, *cover, &seen, now).await?;
            }
            *verdicts.lock().unwrap_or_else(|p| p.into_inner()) = v.into_iter().map(|(_, r)| r).collect();
            Ok(())
        })
        .await;
    let verdicts = verdicts.into_inner().unwrap_or_else(|p| p.into_inner());
    match written {
        Ok(_) => verdicts.into_iter().map(|r| r.map(Some)).collect(),
        Err(crate::engine::tx::TxErr::Fail(AllotError::OutcomeUnknown)) if verdicts.len() == items.len() => verdicts
            .into_iter()
            .map(|r| match r {
                Ok(_) => Err(AllotError::OutcomeUnknown),
                Err(e) => Err(e),
            })
            .collect(),
        Err(e) => {
            let error = super::tx_fail(e);
            tracing::warn!(error = %error, bookings = items.len(), "a batch of capacity bookings failed");
            items.iter().map(|_| Ok(None)).collect()
        }
    }
}

/// What a batch decided for one request: the slots it takes on a resource with slots (the
/// insert's `slots`) and its booking or refusal.
type Verdict = (Option<serde_json::Value>, Result<Booking>);

/// Each resource with slots of a batch, as its tenant, its picture after the batch and the
/// slots to announce.
type Announced<'a> = Vec<(&'a str, Picture, Span)>;

/// What was announced of each picture's slots.
async fn announced_all(tx: &Tx<'_>, pictures: &Announced<'_>) -> TxResult<Vec<Vec<DateTime<Utc>>>> {
    let mut out = Vec::new();
    for (t, p, cover) in pictures {
        out.push(super::announce::announced(tx, t, &p.resource.resource, *cover).await?);
    }
    Ok(out)
}

/// Lock, read and decide: each request's verdict, in arrival order, the batch's now (taken
/// once the locks are held) and the pictures with slots to announce (every booking made
/// counted).
async fn decide_all<'a>(
    store: &PgStore,
    tx: &Tx<'_>,
    items: &'a [Item],
) -> TxResult<(Vec<Verdict>, DateTime<Utc>, Announced<'a>)> {
    let mut spans: BTreeMap<(&str, &str), Span> = BTreeMap::new();
    for (t, r) in items {
        let e = spans
            .entry((t.as_str(), r.resource.as_str()))
            .or_insert((r.start, r.end));
        *e = (e.0.min(r.start), e.1.max(r.end));
    }
    let keys: Vec<(&str, &str)> = spans.keys().copied().collect();
    let configs = capacity::lock_resources_then_pools(tx, &keys).await?;
    let now = store.now();
    let mut pictures: BTreeMap<(&str, &str), Picture> = BTreeMap::new();
    for (((t, r), span), config) in spans.iter().zip(configs) {
        let (p, overdue) = capacity::picture_and_overdue(tx, t, config, *span, now).await?;
        // The overdue held bookings the pictures leave out are expired first (a booking kept
        // alive meanwhile sends the batch back to the per-request path).
        capacity::expire_overdue(tx, t, &overdue, now).await?;
        pictures.insert((t, r), p);
    }
    let verdicts = items
        .iter()
        .map(|(t, req)| decide_one(&mut pictures, (t, req), now))
        .collect();
    let announce = pictures
        .into_iter()
        .zip(spans.values())
        .filter_map(|(((t, _), p), span)| fill::cover(&p, span.0, span.1).map(|c| (t, p, c)))
        .collect();
    Ok((verdicts, now, announce))
}

/// Decide `req` on its picture; a booking made is counted in every picture of its tenant.
fn decide_one(
    pictures: &mut BTreeMap<(&str, &str), Picture>,
    (t, req): (&str, &BookingRequest),
    now: DateTime<Utc>,
) -> Verdict {
    let Some(p) = pictures.get(&(t, req.resource.as_str())) else {
        return (
            None,
            Err(AllotError::Internal(
                "a batch without the picture of its request".into(),
            )),
        );
    };
    let slots = fill::slots_document(p, req.start, req.end);
    let ask = Ask {
        start: req.start,
        end: req.end,
        quantity: req.quantity,
        ignore: None,
        now,
    };
    let decided = check_quantity(&p.resource, req.quantity)
        .and_then(|()| judge(p, &ask))
        .and_then(refusal);
    if let Err(e) = decided {
        return (slots, Err(e));
    }
    let b = req.to_booking(now);
    for ((pt, _), pic) in pictures.iter_mut() {
        if *pt == t {
            fill::with_booking(pic, &b, now);
        }
    }
    (slots, Ok(b))
}

/// Insert every booking made, in one statement.
async fn insert_made(tx: &Tx<'_>, items: &[Item], verdicts: &[Verdict], now: DateTime<Utc>) -> TxResult<()> {
    let made: Vec<(&str, Option<&serde_json::Value>, &Booking)> = items
        .iter()
        .zip(verdicts)
        .filter_map(|((t, _), (slots, r))| r.as_ref().ok().map(|b| (t.as_str(), slots.as_ref(), b)))
        .collect();
    if made.is_empty() {
        return Ok(());
    }
    let tenants: Vec<&str> = made.iter().map(|m| m.0).collect();
    let ids: Vec<&str> = made.iter().map(|m| m.2.id.as_str()).collect();
    let resources: Vec<&str> = made.iter().map(|m| m.2.resource.as_str()).collect();
    let starts: Vec<DateTime<Utc>> = made.iter().map(|m| m.2.start).collect();
    let ends: Vec<DateTime<Utc>> = made.iter().map(|m| m.2.end).collect();
    let holders: Vec<&str> = made.iter().map(|m| m.2.holder.as_str()).collect();
    let metadata: Vec<Option<&serde_json::Value>> = made.iter().map(|m| m.2.metadata.as_ref()).collect();
    let statuses: Vec<&str> = made.iter().map(|m| m.2.status.as_str()).collect();
    let expiries: Vec<Option<DateTime<Utc>>> = made.iter().map(|m| m.2.expires_at).collect();
    let quantities: Vec<i32> = made.iter().map(|m| m.2.quantity as i32).collect();
    let slots: Vec<Option<&serde_json::Value>> = made.iter().map(|m| m.1).collect();
    let stmt = tx.prepare_cached(SQL_INSERT_MANY).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 12] = [
        &tenants,
        &ids,
        &resources,
        &starts,
        &ends,
        &holders,
        &metadata,
        &statuses,
        &expiries,
        &quantities,
        &slots,
        &now,
    ];
    tx.execute(&stmt, &params).await?;
    Ok(())
}
