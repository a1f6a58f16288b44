//! `batched` bookings: flat combining across resources on `engine/flat.rs`'s queues. A
//! booking joins the queue of its lane (the hash of its tenant and resource, so one resource
//! always lands on one lane of an instance); a lane's batch — up to `batch_max_requests`
//! (at most [`MAX_BATCH_BOOKINGS`]) bookings over any resources — is one READ COMMITTED
//! transaction:
//!
//! 1. the advisory lock of every resource in it (`pg_advisory_xact_lock`, the same key the
//!    `exclusion` and `advisory` strategies take), in ascending key order so two batches
//!    never wait on each other's advisory locks in a cycle (the row locks of overdue holds
//!    expired in step 4 can still form one with another writer expiring them: PostgreSQL
//!    breaks it with 40P01 and the batch falls back, as below);
//! 2. one read, in a snapshot taken after the locks, of the blocking bookings in the way of
//!    each request;
//! 3. the decision in Rust, in arrival order ([`decide`]): a live booking in the way refuses
//!    the request naming it, as `exclusion` would; else an earlier booking of the same batch
//!    in the way refuses it naming that one; else it is made;
//! 4. the overdue holds in the way of what is made expired, and everything made inserted in
//!    one statement (the exclusion constraint still checks every row), then the commit.
//!
//! A keyed booking runs on the per-request path (as `exclusion`); so does every booking of a
//! batch that failed before its commit (a 23P01 from a hold extended meanwhile included). A
//! failed batch rolls back before it answers, so the fallback does not wait on its locks. A
//! commit whose outcome is unknown is `503 outcome_unknown` for the bookings it made. The
//! lanes share `batch_max_queued` evenly.

use super::resource_key;
use crate::engine::conn::{Conn, Db};
use crate::engine::errors::map_error;
use crate::engine::pipeline::{begin_with, commit, commit_with, Ended, HandTx};
use crate::engine::store::PgStore;
use allot_core::booking::BookingStatus;
use allot_core::Capable;
use allot_core::{AllotError, Booking, BookingRequest, Result};
use chrono::{DateTime, Utc};
use std::collections::{BTreeSet, HashMap};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

/// Lanes of `batched` bookings per instance: batches of different lanes run at once (their
/// resources differ, so they never wait on each other's locks inside one instance).
const BOOKING_LANES: u64 = 4;

/// Most bookings in one batch (at most `batch_max_requests`): each may hold an advisory lock
/// of its own until the commit, and advisory locks share PostgreSQL's lock table with every
/// session (`max_locks_per_transaction` × connections, PostgreSQL docs 19.12 "Lock
/// Management"), so an instance holds at most `BOOKING_LANES` × this many at once.
const MAX_BATCH_BOOKINGS: usize = 64;

/// A request of a batch: its tenant and the booking.
type Item = (String, BookingRequest);

/// The locks, ascending (`$1`); `unnest` hands them to the function in array order.
const SQL_LOCK: &str = "SELECT pg_advisory_xact_lock(k) FROM unnest($1::int8[]) AS k";

/// The blocking bookings in the way of request `i` (1-based; `$1..$4` each request's tenant,
/// resource, start and end), the guarded strategies' only, as `exclusion` sees them.
///
/// One index probe per request: the probe is a LATERAL subquery with `OFFSET 0`, which
/// PostgreSQL plans on its own rather than pulling it up into the join (a subquery with
/// LIMIT or OFFSET is not "simple": `is_simple_subquery` in the planner's
/// `prep/prepjointree.c`), so no plan can hash the requests and read every blocking booking
/// instead; it tests only the hash and the range, which only the GiST indexes serve, so it
/// cannot walk the primary key over a tenant's bookings either; and the batch runs it with
/// sequential scans off ([`BEGIN_BATCH`]), so a generic plan made on statistics of a small
/// table cannot scan the table once per request after it has grown. The tenant and resource
/// themselves are tested on what it returns. Before, a generic plan made while the table was
/// small hashed the requests (its cost grew with the table: 13 % of the machine in hashing at
/// 31 000 bookings).
const SQL_IN_WAY: &str = "SELECT r.i, b.id, b.status, b.expires_at
    FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY
         AS r(tenant, resource, s, e, i)
    CROSS JOIN LATERAL (
        SELECT id, tenant, resource, status, expires_at FROM bookings
         WHERE resource_hash = allot_resource_hash(r.tenant, r.resource) AND during && tstzrange(r.s, r.e, '[)')
           AND status IN ('confirmed', 'held') AND strategy <> 'naive'
        OFFSET 0) b
   WHERE b.tenant = r.tenant AND b.resource = r.resource
   ORDER BY r.i, b.id";

/// The requests (1-based) whose resource was put: they leave the batch for the per-request
/// path, which decides them by capacity. Read after the locks, like [`SQL_IN_WAY`].
const SQL_PUT: &str = "SELECT r.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(tenant, resource, i)
   WHERE EXISTS (SELECT 1 FROM resources p WHERE p.tenant = r.tenant AND p.resource = r.resource)";

/// A batch's `BEGIN`: READ COMMITTED whatever the server's default, and no sequential scan of
/// `bookings` in its plans (`enable_seqscan` only discourages: PostgreSQL docs 20.7.1
/// "Planner Method Configuration"), for the reason given at [`SQL_IN_WAY`]; every statement of
/// a batch reads `bookings` through an index.
const BEGIN_BATCH: &str = "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL enable_seqscan = off";

/// Expire the overdue holds (`$1` tenants, `$2` ids) at `$3`.
const SQL_EXPIRE: &str = "UPDATE bookings b SET status = 'expired', status_at = $3
    FROM unnest($1::text[], $2::text[]) AS o(tenant, id)
   WHERE b.tenant = o.tenant AND b.id = o.id AND b.status = 'held' AND b.expires_at <= $3";

/// Insert every booking made (`$1..$9` columns, `$10` now).
const SQL_INSERT_MANY: &str =
    "INSERT INTO bookings (tenant, id, resource, during, holder, metadata, status, strategy, expires_at, created_at)
     SELECT t, id, resource, tstzrange(s, e, '[)'), holder, metadata, status, 'batched', expires_at, $10
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::text[],
                   $7::json[], $8::text[], $9::timestamptz[])
         AS r(t, id, resource, s, e, holder, metadata, status, expires_at)";

impl PgStore {
    /// Book through the lane's batch: `Some` when the batch made it, an overlap when it
    /// refused it, `None` when it is to run on the per-request path. A full queue
    /// (`batch_max_queued` shared evenly by the lanes) is `503 unavailable` at once.
    pub(crate) async fn book_batched(&self, tenant: &str, req: BookingRequest) -> Result<Option<Booking>> {
        let lane = (resource_key(tenant, &req.resource) as u64 % BOOKING_LANES) as usize;
        let joined = self.booking_batches.join(
            &lane,
            (tenant.to_string(), req),
            (self.limits.batch_max_queued / BOOKING_LANES as usize).max(1),
            "booking",
        )?;
        if joined.start {
            tokio::spawn(run_lane(self.clone(), lane));
        }
        joined.answer("booking").await
    }
}

/// Run batches of `lane` until its queue is empty.
async fn run_lane(store: PgStore, lane: usize) {
    let max = store.limits.batch_max_requests.min(MAX_BATCH_BOOKINGS);
    // One batch at a time per lane (`go` goes with the batch): a second batch in flight was
    // no better in `bench/pgbench/bookings_compare.sh` (lower in two runs), as 64-booking
    // batches over 100 resources nearly always share one and wait for the first's locks.
    let decide = |items: Vec<Item>, go: crate::engine::flat::Go| {
        let store = store.clone();
        async move {
            let _go = go;
            match run_batch(&store, &items).await {
                Ok(answers) => answers,
                Err(Failed { error, verdicts }) => {
                    tracing::warn!(error = %error, bookings = items.len(), "a batch of bookings failed");
                    fallback(&error, verdicts, items.len())
                }
            }
        }
    };
    store.booking_batches.run((&lane, "bookings"), (max, 1), decide).await;
}

/// The answers of a failed batch: a booking it made under a commit of unknown outcome is
/// `outcome_unknown`; one refused by a stored booking stays refused; every other one runs on
/// the per-request path (nothing of the batch was applied, or what refused it may not exist).
fn fallback(error: &AllotError, verdicts: Option<Vec<Verdict>>, n: usize) -> Vec<Result<Option<Booking>>> {
    let unknown = matches!(error, AllotError::OutcomeUnknown);
    match verdicts {
        None => (0..n).map(|_| Ok(None)).collect(),
        Some(v) => v
            .into_iter()
            .map(|v| match v {
                Verdict::Made if unknown => Err(AllotError::OutcomeUnknown),
                Verdict::Stored(id) => Err(overlap(id)),
                _ => Ok(None),
            })
            .collect(),
    }
}

fn overlap(id: String) -> AllotError {
    AllotError::BookingOverlap {
        conflicting_booking_id: Some(id),
    }
}

/// Why a batch failed, and its verdicts when it failed at its commit.
struct Failed {
    error: AllotError,
    verdicts: Option<Vec<Verdict>>,
}

impl From<tokio_postgres::Error> for Failed {
    fn from(e: tokio_postgres::Error) -> Self {
        Failed {
            error: map_error(e),
            verdicts: None,
        }
    }
}

impl From<AllotError> for Failed {
    fn from(error: AllotError) -> Self {
        Failed { error, verdicts: None }
    }
}

/// One batch transaction: each booking made or refused. A failure before the commit rolls
/// the transaction back before it is reported.
///
/// Two round trips for a batch without overdue holds in its way: `BEGIN`, the locks and the
/// read of what is in the way travel together (each statement starts when the one before it
/// has returned, so the read's snapshot is taken once the locks are held), and so do the
/// insert and `COMMIT` (after an error in the insert, PostgreSQL ends the failed transaction
/// at `COMMIT` with a rollback), as the stock lanes' batches do (`engine/batched/txn.rs`).
async fn run_batch(store: &PgStore, items: &[Item]) -> std::result::Result<Vec<Result<Option<Booking>>>, Failed> {
    let client = HandTx::new(store.client().await?);
    let decided = match decide_in(store, &client, items).await {
        Ok(decided) => decided,
        Err(failed) => {
            client.roll_back().await;
            return Err(failed);
        }
    };
    let (verdicts, made, now) = decided;
    let ended = insert_and_commit(&client, items, &verdicts, &made, now).await;
    client.end_after(&ended).await;
    if let Err(error) = ended {
        // Refused: no booking was inserted, so every one may run again.
        let verdicts = matches!(error, Ended::Unknown | Ended::CommitFailed(_)).then_some(verdicts);
        let error = match error {
            Ended::Refused(e) => map_error(e),
            Ended::Unknown => AllotError::OutcomeUnknown,
            Ended::CommitFailed(_) => AllotError::Unavailable("a booking batch's commit failed".into()),
        };
        return Err(Failed { error, verdicts });
    }
    let mut made = made.into_iter();
    Ok(verdicts
        .into_iter()
        .map(|v| match v {
            Verdict::Made => Ok(made.next()),
            Verdict::Stored(id) | Verdict::Batch(id) => Err(overlap(id)),
            Verdict::Put => Ok(None),
        })
        .collect())
}

/// Inside the batch's transaction, up to its insert: lock, read, decide, expire. The
/// verdicts, the bookings to make in order, and the batch's now (taken once the locks are
/// held).
async fn decide_in(
    store: &PgStore,
    client: &Conn,
    items: &[Item],
) -> std::result::Result<(Vec<Verdict>, Vec<Booking>, DateTime<Utc>), Failed> {
    let (rows, put) = lock_and_read(client, items).await?;
    let now = store.now();
    let in_way = in_way_of(rows, items.len(), now)?;
    let (verdicts, overdue) = decide(items, &in_way, &put);
    if !overdue.is_empty() {
        let (tenants, ids): (Vec<String>, Vec<String>) = overdue.into_iter().unzip();
        let stmt = client.prepare_cached(SQL_EXPIRE).await?;
        client.execute(&stmt, &[&tenants, &ids, &now]).await?;
    }
    let made: Vec<Booking> = items
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| **v == Verdict::Made)
        .map(|((_, r), _)| r.to_booking(now))
        .collect();
    Ok((verdicts, made, now))
}

/// `BEGIN`, the advisory lock of every resource of the batch (ascending), the read of what
/// is in each request's way and of which requests' resources were put, in one round trip:
/// the read's rows, and the put requests' indexes (0-based).
async fn lock_and_read(client: &Conn, items: &[Item]) -> std::result::Result<(Vec<Row>, BTreeSet<usize>), Failed> {
    let keys: Vec<i64> = items
        .iter()
        .map(|(t, r)| resource_key(t, &r.resource))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let tenants: Vec<&str> = items.iter().map(|(t, _)| t.as_str()).collect();
    let resources: Vec<&str> = items.iter().map(|(_, r)| r.resource.as_str()).collect();
    let starts: Vec<DateTime<Utc>> = items.iter().map(|(_, r)| r.start).collect();
    let ends: Vec<DateTime<Utc>> = items.iter().map(|(_, r)| r.end).collect();
    let lock = client.prepare_cached(SQL_LOCK).await?;
    let read = client.prepare_cached(SQL_IN_WAY).await?;
    let put = client.prepare_cached(SQL_PUT).await?;
    let lock_params: [&(dyn ToSql + Sync); 1] = [&keys];
    let read_params: [&(dyn ToSql + Sync); 4] = [&tenants, &resources, &starts, &ends];
    let put_params: [&(dyn ToSql + Sync); 2] = [&tenants, &resources];
    let lock_and_read = async {
        let (locked, rows, put) = tokio::join!(
            client.execute(&lock, &lock_params),
            client.query(&read, &read_params),
            client.query(&put, &put_params)
        );
        locked?;
        Ok((rows?, put?))
    };
    let (rows, put) = begin_with(client, BEGIN_BATCH, lock_and_read).await?;
    let put = put
        .iter()
        .filter_map(|r| usize::try_from(r.get::<_, i64>(0) - 1).ok())
        .collect();
    Ok((rows, put))
}

/// A stored booking in a request's way: its id, and whether it still blocks at the batch's
/// now (`false`: a hold past its expiry, to be expired).
#[derive(Debug, Clone)]
struct InWay {
    id: String,
    live: bool,
}

/// What is in each of `n` requests' way, in request order, from the rows of
/// [`SQL_IN_WAY`], as it stands at `now`.
fn in_way_of(rows: Vec<Row>, n: usize, now: DateTime<Utc>) -> std::result::Result<Vec<Vec<InWay>>, Failed> {
    let mut in_way = vec![Vec::new(); n];
    for r in rows {
        let i: i64 = r.try_get(0)?;
        let status = BookingStatus::parse(r.try_get(2)?)
            .ok_or_else(|| AllotError::Internal("a booking of unknown status".into()))?;
        let slot = usize::try_from(i - 1)
            .ok()
            .and_then(|i| in_way.get_mut(i))
            .ok_or_else(|| AllotError::Internal("a booking batch read an unknown request".into()))?;
        slot.push(InWay {
            id: r.try_get(1)?,
            live: status.effective(r.try_get(3)?, now).blocks(),
        });
    }
    Ok(in_way)
}

/// Insert the bookings `made` (the requests whose verdict is [`Verdict::Made`], in order),
/// pipelined with `COMMIT`; a batch that made none only commits.
async fn insert_and_commit(
    client: &Conn,
    items: &[Item],
    verdicts: &[Verdict],
    made: &[Booking],
    now: DateTime<Utc>,
) -> std::result::Result<(), Ended> {
    if made.is_empty() {
        return commit(client).await;
    }
    let columns = Columns::of(items, verdicts, made);
    let params = columns.params(&now);
    let stmt = client.prepare_cached(SQL_INSERT_MANY).await.map_err(Ended::Refused)?;
    commit_with(client, client.execute(&stmt, &params)).await.map(drop)
}

/// The columns of [`SQL_INSERT_MANY`] but now.
struct Columns<'a> {
    tenants: Vec<&'a str>,
    ids: Vec<&'a str>,
    resources: Vec<&'a str>,
    starts: Vec<DateTime<Utc>>,
    ends: Vec<DateTime<Utc>>,
    holders: Vec<&'a str>,
    metadata: Vec<Option<&'a serde_json::Value>>,
    statuses: Vec<&'static str>,
    expiries: Vec<Option<DateTime<Utc>>>,
}

impl<'a> Columns<'a> {
    /// The columns of the bookings `made` (the requests of `items` whose verdict is
    /// [`Verdict::Made`], in order).
    fn of(items: &'a [Item], verdicts: &[Verdict], made: &'a [Booking]) -> Self {
        Columns {
            tenants: items
                .iter()
                .zip(verdicts)
                .filter(|(_, v)| **v == Verdict::Made)
                .map(|((t, _), _)| t.as_str())
                .collect(),
            ids: made.iter().map(|b| b.id.as_str()).collect(),
            resources: made.iter().map(|b| b.resource.as_str()).collect(),
            starts: made.iter().map(|b| b.start).collect(),
            ends: made.iter().map(|b| b.end).collect(),
            holders: made.iter().map(|b| b.holder.as_str()).collect(),
            metadata: made.iter().map(|b| b.metadata.as_ref()).collect(),
            statuses: made.iter().map(|b| b.status.as_str()).collect(),
            expiries: made.iter().map(|b| b.expires_at).collect(),
        }
    }

    fn params<'b>(&'b self, now: &'b DateTime<Utc>) -> [&'b (dyn ToSql + Sync); 10] {
        [
            &self.tenants,
            &self.ids,
            &self.resources,
            &self.starts,
            &self.ends,
            &self.holders,
            &self.metadata,
            &self.statuses,
            &self.expiries,
            now,
        ]
    }
}

/// What a batch decided for one booking.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// Made by the batch.
    Made,
    /// Refused: this stored live booking is in the way.
    Stored(String),
    /// Refused: this booking, made earlier in the same batch, is in the way.
    Batch(String),
    /// Its resource was put: decided on the per-request path, by capacity.
    Put,
}

/// Decide a batch in arrival order from what is stored in each request's way (`in_way[i]`,
/// by id): the verdicts, and the overdue holds (tenant, id) in the way of what is made.
fn decide(items: &[Item], in_way: &[Vec<InWay>], put: &BTreeSet<usize>) -> (Vec<Verdict>, BTreeSet<(String, String)>) {
    let mut made: HashMap<(&str, &str), Vec<&BookingRequest>> = HashMap::new();
    let mut overdue = BTreeSet::new();
    let verdicts = items
        .iter()
        .zip(in_way)
        .enumerate()
        .map(|(i, ((tenant, req), stored))| {
            if put.contains(&i) {
                return Verdict::Put;
            }
            if let Some(live) = stored.iter().find(|b| b.live) {
                return Verdict::Stored(live.id.clone());
            }
            let earlier = made.entry((tenant.as_str(), req.resource.as_str())).or_default();
            if let Some(b) = earlier.iter().find(|b| b.start < req.end && req.start < b.end) {
                return Verdict::Batch(b.id.clone());
            }
            earlier.push(req);
            overdue.extend(stored.iter().map(|b| (tenant.clone(), b.id.clone())));
            Verdict::Made
        })
        .collect();
    (verdicts, overdue)
}

#[cfg(test)]
mod tests {
    use super::{decide, InWay, Verdict};
    use crate::engine::conn::Db;
    use allot_core::{BookingRequest, BookingStrategy};
    use chrono::{TimeZone, Utc};

    fn req(id: &str, resource: &str, from_h: u32, to_h: u32) -> (String, BookingRequest) {
        in_tenant("t", id, resource, (from_h, to_h))
    }

    fn in_tenant(tenant: &str, id: &str, resource: &str, (from_h, to_h): (u32, u32)) -> (String, BookingRequest) {
        let at = |h| Utc.with_ymd_and_hms(2030, 1, 1, h, 0, 0).unwrap();
        let r = BookingRequest {
            id: id.into(),
            resource: resource.into(),
            start: at(from_h),
            end: at(to_h),
            holder: "h".into(),
            metadata: Some(serde_json::json!({"n": -0.0})),
            strategy: BookingStrategy::Batched,
            hold_ttl_ms: None,
            quantity: 1,
            hold_id: None,
        };
        (tenant.into(), r)
    }

    /// On the test PostgreSQL, the batch itself decides (a batch that failed would send
    /// every booking to the per-request path, which answers alike, so the conformance cases
    /// alone could not tell): a stored live booking refuses, an earlier one of the batch
    /// refuses, touching ranges and another tenant's resource do not; the metadata is kept
    /// as sent.
    #[tokio::test]
    async fn a_batch_decides_on_postgres() {
        let schema = crate::engine::test_schema::TestSchema::new("t_booking_batch").await;
        let store = schema.store().await;
        let first = super::run_batch(&store, &[req("stored", "R", 1, 2)]).await;
        assert!(matches!(first.ok().as_deref(), Some([Ok(Some(_))])));
        let items = [
            req("a", "R", 1, 3),
            req("b", "R", 2, 4),
            req("c", "R", 3, 5),
            in_tenant("u", "d", "R", (1, 3)),
        ];
        let Ok(answers) = super::run_batch(&store, &items).await else {
            panic!("the batch failed")
        };
        let named = |i: usize| match &answers[i] {
            Err(allot_core::AllotError::BookingOverlap {
                conflicting_booking_id: Some(id),
            }) => id.clone(),
            other => panic!("{i}: {other:?}"),
        };
        assert_eq!(named(0), "stored");
        assert!(matches!(answers[1], Ok(Some(_))), "{:?}", answers[1]);
        assert_eq!(named(2), "b");
        assert!(matches!(answers[3], Ok(Some(_))), "{:?}", answers[3]);
        let c = store.client().await.unwrap();
        let metadata: String = c
            .query_one(
                "SELECT metadata::text FROM bookings WHERE tenant = 'u' AND id = 'd'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(metadata, r#"{"n":-0.0}"#);
        schema.drop().await;
    }

    /// A batch whose insert the exclusion constraint refuses (two made bookings that
    /// overlap, which `decide` never makes, standing in for a hold extended meanwhile): it
    /// is `Refused`, nothing of it is applied, and its connection is out of the transaction
    /// (a `SAVEPOINT` there is an error), its advisory locks released.
    #[tokio::test]
    async fn a_refused_insert_applies_nothing() {
        let schema = crate::engine::test_schema::TestSchema::new("t_booking_refused").await;
        let store = schema.store().await;
        let items = [req("a", "R", 1, 3), req("b", "R", 2, 4)];
        let client = store.client().await.unwrap();
        let (rows, _) = super::lock_and_read(&client, &items).await.ok().unwrap();
        assert!(rows.is_empty());
        let now = allot_core::Capable::now(&store);
        let made: Vec<_> = items.iter().map(|(_, r)| r.to_booking(now)).collect();
        let verdicts = [Verdict::Made, Verdict::Made];
        let ended = super::insert_and_commit(&client, &items, &verdicts, &made, now).await;
        match ended {
            Err(super::Ended::Refused(e)) => {
                assert_eq!(e.code(), Some(&tokio_postgres::error::SqlState::EXCLUSION_VIOLATION))
            }
            _ => panic!("the insert was not refused"),
        }
        assert!(
            client.batch_execute("SAVEPOINT s").await.is_err(),
            "still in a transaction"
        );
        let n: i64 = client
            .query_one("SELECT count(*) FROM bookings", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 0);
        let key = super::resource_key("t", "R");
        let free: bool = schema
            .admin
            .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&key])
            .await
            .unwrap()
            .get(0);
        assert!(free, "the batch's advisory lock outlived it");
        drop(client);
        schema.drop().await;
    }

    /// `bookings` gets fresh planner statistics from the store itself once its first
    /// thousand bookings are made (autovacuum is off for the table here, so only the store
    /// can have run the ANALYZE that sets `reltuples`).
    #[tokio::test]
    async fn the_first_thousand_bookings_bring_an_analyze() {
        let schema = crate::engine::test_schema::TestSchema::new("t_booking_analyze").await;
        let store = schema.store().await;
        let c = store.client().await.unwrap();
        c.batch_execute("ALTER TABLE bookings SET (autovacuum_enabled = false)")
            .await
            .unwrap();
        let tenant = allot_core::tenant::Tenant::stored("t");
        let booked = futures::future::join_all((0..1000).map(|i| {
            let (_, r) = req(&format!("b{i}"), &format!("R{i}"), 1, 2);
            allot_core::store::BookingStore::book(&store, &tenant, r, None)
        }))
        .await;
        assert!(booked.iter().all(|b| b.is_ok()));
        let reltuples = "SELECT reltuples::int8 FROM pg_class WHERE oid = 'bookings'::regclass";
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let n: i64 = c.query_one(reltuples, &[]).await.unwrap().get(0);
            if n == 1000 {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no ANALYZE of bookings (reltuples {n})"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        drop(c);
        schema.drop().await;
    }

    fn stored(id: &str, live: bool) -> InWay {
        InWay { id: id.into(), live }
    }

    /// In arrival order: a live stored booking refuses; an earlier one of the batch on the
    /// same resource refuses; touching half-open ranges and other resources do not; overdue
    /// holds are expired only in the way of what is made.
    #[test]
    fn arrival_order_and_half_open() {
        let items = [
            req("a", "R", 1, 3),
            req("b", "R", 2, 4),
            req("c", "R", 3, 5),
            req("d", "S", 1, 3),
            req("e", "S", 5, 6),
            req("f", "S", 5, 6),
        ];
        let in_way = [
            vec![stored("old", false)],
            vec![stored("old", false)],
            vec![],
            vec![stored("x", false), stored("y", true)],
            vec![stored("z", false)],
            vec![stored("z", false)],
        ];
        let (v, overdue) = decide(&items, &in_way, &std::collections::BTreeSet::new());
        assert_eq!(
            v,
            [
                Verdict::Made,
                Verdict::Batch("a".into()),
                Verdict::Made,
                Verdict::Stored("y".into()),
                Verdict::Made,
                Verdict::Batch("e".into()),
            ]
        );
        let overdue: Vec<&str> = overdue.iter().map(|(_, id)| id.as_str()).collect();
        assert_eq!(overdue, ["old", "z"]);
    }
}
