//! The hot paths `allot bench cost` counts: for each, what is made before it is measured and
//! the fixed sequence of requests of one operation. Everything a request carries is a
//! function of the path and the operation's number (SKUs are picked by a seeded hash), so two
//! runs send the same bytes but for the ids and instants the server hands out.

use crate::error::BenchError;
use hyper::Method;
use serde_json::{json, Value};

/// One hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CostPath {
    /// `POST /v1/allocations` of one unit of one of [`SKUS`] SKUs, `"strategy":"atomic"`.
    Atomic,
    /// The same, `"strategy":"batched"`.
    Batched,
    /// `POST /v1/holds` of one unit, then `POST /v1/holds/{id}/confirm`.
    HoldConfirm,
    /// `POST /v1/unit-allocations` of one unit of a unit-tracked SKU.
    UnitClaim,
    /// `POST /v1/resources/{r}/bookings` of an hour that overlaps nothing.
    Booking,
    /// `POST /v1/resources/{r}/bookings` of one night on a resource put with a capacity per
    /// night and a pool (the capacity path: locks, picture, judge, insert, the slots' fill).
    CapacityBooking,
    /// Enqueue one job, claim it, complete it (three requests).
    Job,
    /// `POST /v1/batch` of [`BATCH_OPERATIONS`] one-unit allocations; per operation.
    BatchApi,
    /// Reading the change feed (`GET /v1/events`, pages of [`FEED_PAGE`]) after the bench
    /// sequenced the events; per event. The sequencing's statements and WAL are in the
    /// window; its instructions are the bench's, not the server's.
    FeedEvent,
}

/// SKUs the stock paths pick among.
pub const SKUS: u64 = 8;
/// Operations in one request of [`CostPath::BatchApi`].
pub const BATCH_OPERATIONS: u64 = 50;
/// Events in one page of [`CostPath::FeedEvent`].
pub const FEED_PAGE: u64 = 100;
/// Stock of each SKU: more than any run takes.
const STOCK: i64 = 1_000_000_000;
/// Units made per request of the unit path's set-up.
const UNITS_PER_REQUEST: u64 = 500;

impl CostPath {
    /// Every path, in the table's order.
    pub const ALL: [CostPath; 9] = [
        CostPath::Atomic,
        CostPath::Batched,
        CostPath::HoldConfirm,
        CostPath::UnitClaim,
        CostPath::Booking,
        CostPath::CapacityBooking,
        CostPath::Job,
        CostPath::BatchApi,
        CostPath::FeedEvent,
    ];

    /// The path's name in the table, the baseline and `--paths`.
    pub fn name(self) -> &'static str {
        match self {
            CostPath::Atomic => "atomic",
            CostPath::Batched => "batched",
            CostPath::HoldConfirm => "hold_confirm",
            CostPath::UnitClaim => "unit_claim",
            CostPath::Booking => "booking",
            CostPath::CapacityBooking => "capacity_booking",
            CostPath::Job => "job",
            CostPath::BatchApi => "batch_api",
            CostPath::FeedEvent => "feed_event",
        }
    }

    /// The path named `s`.
    pub fn parse(s: &str) -> Option<CostPath> {
        CostPath::ALL.into_iter().find(|p| p.name() == s)
    }

    /// What one operation is, for the table.
    pub fn about(self) -> &'static str {
        match self {
            CostPath::Atomic => "allocation of 1, atomic",
            CostPath::Batched => "allocation of 1, batched",
            CostPath::HoldConfirm => "hold of 1 + confirm",
            CostPath::UnitClaim => "unit claim of 1",
            CostPath::Booking => "booking of 1 h",
            CostPath::CapacityBooking => "booking of 1 night, capacity + pool",
            CostPath::Job => "enqueue + claim + complete",
            CostPath::BatchApi => "allocation in a batch of 50",
            CostPath::FeedEvent => "event sequenced + read",
        }
    }

    /// How many times `--ops` operations a window of this path holds: 5 for the paths whose
    /// requests carry many operations (so a window holds 20 batches or 10 pages, and a
    /// lane's timing or one cache refresh weighs little per operation), else 1.
    pub fn scale(self) -> u64 {
        match self {
            CostPath::BatchApi | CostPath::FeedEvent => 5,
            _ => 1,
        }
    }

    /// Operations one call of [`Driver::operate`] performs.
    pub fn per_call(self) -> u64 {
        match self {
            CostPath::BatchApi => BATCH_OPERATIONS,
            CostPath::FeedEvent => FEED_PAGE,
            _ => 1,
        }
    }
}

/// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014):
/// the seeded pick of a SKU, with no state to carry between operations.
fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Sends one path's requests to one server, one at a time on one HTTP/1.1 connection (hyper's
/// connection-level client: a pooled client may open a new connection when the next request
/// leaves before the last connection is back in its pool, and the server would count an
/// accept and a connection task in some windows and not in others).
pub struct Driver {
    addr: String,
    connection: Option<Sender>,
    seed: u64,
    /// The feed's cursor so far.
    after: i64,
    /// Requests sent so far.
    pub requests: u64,
}

/// The sending half of the driver's connection.
type Sender = hyper::client::conn::http1::SendRequest<http_body_util::Full<bytes::Bytes>>;

/// Longest one request may take (the server runs under callgrind, dozens of times slower).
const REQUEST_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

impl Driver {
    /// A driver of the server at `base` (`http://127.0.0.1:PORT`); it connects on its first
    /// request.
    pub fn new(base: &str, seed: u64) -> Result<Driver, BenchError> {
        let addr = base
            .strip_prefix("http://")
            .ok_or_else(|| BenchError::Setup(format!("not an http:// address: {base}")))?;
        Ok(Driver {
            addr: addr.to_string(),
            connection: None,
            seed,
            after: 0,
            requests: 0,
        })
    }

    /// The open connection, made again if the server closed it.
    async fn connection(&mut self) -> Result<&mut Sender, BenchError> {
        let setup = |e: &dyn std::fmt::Display| BenchError::Setup(format!("connecting to the server: {e}"));
        if self.connection.as_ref().is_none_or(|c| c.is_closed()) {
            let stream = tokio::net::TcpStream::connect(&self.addr)
                .await
                .map_err(|e| setup(&e))?;
            stream.set_nodelay(true).map_err(|e| setup(&e))?;
            let io = hyper_util::rt::TokioIo::new(stream);
            let (sender, conn) = hyper::client::conn::http1::handshake(io).await.map_err(|e| setup(&e))?;
            tokio::spawn(conn);
            self.connection = Some(sender);
        }
        let sender = self.connection.as_mut().ok_or_else(|| setup(&"no connection"))?;
        sender.ready().await.map_err(|e| setup(&e))?;
        Ok(sender)
    }

    /// Send one request; its status and body, or an error naming what was expected.
    async fn send(
        &mut self,
        method: Method,
        path: &str,
        body: Option<Value>,
        want: &[u16],
    ) -> Result<Value, BenchError> {
        use http_body_util::BodyExt;
        let failed = |e: &dyn std::fmt::Display| BenchError::Setup(format!("{method} {path}: {e}"));
        let mut req = hyper::Request::builder()
            .method(method.clone())
            .uri(path)
            .header(hyper::header::HOST, self.addr.as_str());
        let bytes = match body {
            Some(b) => {
                req = req.header(hyper::header::CONTENT_TYPE, "application/json");
                serde_json::to_vec(&b).map_err(|e| failed(&e))?
            }
            None => Vec::new(),
        };
        let req = req
            .body(http_body_util::Full::new(bytes::Bytes::from(bytes)))
            .map_err(|e| failed(&e))?;
        self.requests += 1;
        let exchange = async {
            let resp = self
                .connection()
                .await?
                .send_request(req)
                .await
                .map_err(|e| failed(&e))?;
            let status = resp.status().as_u16();
            let body = resp.into_body().collect().await.map_err(|e| failed(&e))?.to_bytes();
            Ok::<_, BenchError>((status, body))
        };
        let (status, body) = tokio::time::timeout(REQUEST_LIMIT, exchange)
            .await
            .map_err(|_| failed(&"no answer within the request limit"))??;
        if !want.contains(&status) {
            let text = String::from_utf8_lossy(&body);
            return Err(BenchError::Setup(format!("{path} answered {status}: {text}")));
        }
        Ok(serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    /// The SKU of operation `i` of `path`.
    fn sku(&self, path: CostPath, i: u64) -> String {
        format!("cost-{}-{}", path.name(), mix(self.seed, i) % SKUS)
    }

    /// Make what `calls` calls of [`Driver::operate`] on `path` need.
    pub async fn prepare(&mut self, path: CostPath, calls: u64) -> Result<(), BenchError> {
        match path {
            CostPath::UnitClaim => self.make_units(calls).await,
            CostPath::Booking | CostPath::Job => Ok(()),
            CostPath::CapacityBooking => self.put_hotel().await,
            _ => {
                for k in 0..SKUS {
                    let body = json!({"sku": format!("cost-{}-{k}", path.name()), "on_hand": STOCK});
                    self.send(Method::POST, "/v1/skus", Some(body), &[200, 201, 409])
                        .await?;
                }
                Ok(())
            }
        }
    }

    async fn make_units(&mut self, count: u64) -> Result<(), BenchError> {
        let mut made = 0;
        while made < count {
            let n = UNITS_PER_REQUEST.min(count - made);
            let units: Vec<Value> = (made..made + n)
                .map(|i| json!({"serial": format!("S{i:08}"), "location": "A1"}))
                .collect();
            self.send(
                Method::POST,
                "/v1/skus/cost-units/units",
                Some(json!({"units": units})),
                &[200, 201],
            )
            .await?;
            made += n;
        }
        Ok(())
    }

    /// Write what the feed path reads: at least `calls` pages of events (an allocation
    /// writes one or more).
    pub async fn write_events(&mut self, calls: u64) -> Result<(), BenchError> {
        for i in 0..calls * FEED_PAGE {
            let body =
                json!({"lines": [{"sku": self.sku(CostPath::FeedEvent, i), "quantity": 1}], "strategy": "atomic"});
            self.send(Method::POST, "/v1/allocations", Some(body), &[201]).await?;
        }
        Ok(())
    }

    /// Operation `i` of `path` (see [`CostPath`]).
    pub async fn operate(&mut self, path: CostPath, i: u64) -> Result<(), BenchError> {
        match path {
            CostPath::Atomic | CostPath::Batched => {
                let strategy = if path == CostPath::Atomic { "atomic" } else { "batched" };
                let body = json!({"lines": [{"sku": self.sku(path, i), "quantity": 1}], "strategy": strategy});
                self.send(Method::POST, "/v1/allocations", Some(body), &[201]).await?;
            }
            CostPath::HoldConfirm => {
                let body = json!({"lines": [{"sku": self.sku(path, i), "quantity": 1}], "ttl_ms": 600_000});
                let hold = self.send(Method::POST, "/v1/holds", Some(body), &[201]).await?;
                let id = hold["id"].as_str().unwrap_or_default().to_string();
                self.send(Method::POST, &format!("/v1/holds/{id}/confirm"), None, &[200, 201])
                    .await?;
            }
            CostPath::UnitClaim => {
                let body = json!({"sku": "cost-units", "quantity": 1});
                self.send(Method::POST, "/v1/unit-allocations", Some(body), &[201])
                    .await?;
            }
            CostPath::Booking => self.book(i).await?,
            CostPath::CapacityBooking => self.book_night(i).await?,
            CostPath::Job => self.job(i).await?,
            CostPath::BatchApi => {
                let ops: Vec<Value> = (0..BATCH_OPERATIONS)
                    .map(|k| {
                        let sku = self.sku(path, i * BATCH_OPERATIONS + k);
                        json!({"op": "allocate", "body": {"lines": [{"sku": sku, "quantity": 1}]}})
                    })
                    .collect();
                self.send(Method::POST, "/v1/batch", Some(json!({"operations": ops})), &[200])
                    .await?;
            }
            CostPath::FeedEvent => self.read_page().await?,
        }
        Ok(())
    }

    /// Book hour `i` (from 2031-01-01) on one of four resources: nothing overlaps.
    async fn book(&mut self, i: u64) -> Result<(), BenchError> {
        let start = chrono::DateTime::parse_from_rfc3339("2031-01-01T00:00:00Z")
            .map_err(|e| BenchError::Setup(e.to_string()))?
            + chrono::Duration::hours(i as i64);
        let end = start + chrono::Duration::hours(1);
        let body = json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(), "holder": "cost"});
        let path = format!("/v1/resources/cost-room-{}/bookings", mix(self.seed, i) % 4);
        self.send(Method::POST, &path, Some(body), &[201]).await?;
        Ok(())
    }

    /// A pool and four resources in it, each with more per night than any run books.
    async fn put_hotel(&mut self) -> Result<(), BenchError> {
        let day = 86_400_000;
        let pool = json!({"capacity": 1_000_000, "slot_ms": day});
        self.send(Method::PUT, "/v1/pools/cost-wing", Some(pool), &[200])
            .await?;
        for k in 0..4 {
            let r = json!({"capacity": 1_000_000, "slot_ms": day, "pools": ["cost-wing"]});
            self.send(Method::PUT, &format!("/v1/resources/cost-hotel-{k}"), Some(r), &[200])
                .await?;
        }
        Ok(())
    }

    /// Book night `i` (from 2031-01-01) on one of the four put resources: each night its own,
    /// so what a picture reads does not grow with the run.
    async fn book_night(&mut self, i: u64) -> Result<(), BenchError> {
        let start = chrono::DateTime::parse_from_rfc3339("2031-01-01T00:00:00Z")
            .map_err(|e| BenchError::Setup(e.to_string()))?
            + chrono::Duration::days(i as i64);
        let end = start + chrono::Duration::days(1);
        let body = json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(), "holder": "cost"});
        let path = format!("/v1/resources/cost-hotel-{}/bookings", mix(self.seed, i) % 4);
        self.send(Method::POST, &path, Some(body), &[201]).await?;
        Ok(())
    }

    async fn job(&mut self, i: u64) -> Result<(), BenchError> {
        let body = json!({"jobs": [{"payload": {"n": i}}]});
        self.send(Method::POST, "/v1/queues/cost/jobs", Some(body), &[200, 201])
            .await?;
        let claim = json!({"max": 1, "lease_ms": 60_000, "worker": "cost"});
        let claimed = self
            .send(Method::POST, "/v1/queues/cost/claims", Some(claim), &[200])
            .await?;
        let job = &claimed["jobs"][0];
        let (id, token) = (job["id"].as_i64().unwrap_or(-1), job["lease_token"].clone());
        self.send(
            Method::POST,
            &format!("/v1/jobs/{id}/complete"),
            Some(json!({"lease_token": token})),
            &[200],
        )
        .await?;
        Ok(())
    }

    async fn read_page(&mut self) -> Result<(), BenchError> {
        let page = self
            .send(
                Method::GET,
                &format!("/v1/events?after={}&limit={FEED_PAGE}", self.after),
                None,
                &[200],
            )
            .await?;
        let events = page["events"].as_array().map_or(0, Vec::len) as u64;
        if events != FEED_PAGE {
            return Err(BenchError::Setup(format!(
                "a feed page held {events} events, not {FEED_PAGE}"
            )));
        }
        self.after = page["next"].as_i64().unwrap_or(self.after);
        Ok(())
    }
}
