//! A client of the faults phase: a seeded mix of allocations, cancels, adjustments and reads
//! on a few SKUs, and a worker's claims and completions on one queue, each operation retried
//! with its idempotency key until it has a settled answer (a 2xx or a 4xx), as a careful client
//! would; now and then it stops waiting for an answer (the answer is lost, the request may
//! have committed) and retries, and now and then it abandons a lease (a worker that died).

use super::history::{Call, History, Lease, Outcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The SKUs the clients fight over.
pub const SKUS: [&str; 3] = ["F1", "F2", "F3"];
/// The stock strategies the clients allocate with (client `i` uses the `i`-th, wrapping), so
/// that each meets the faults and they all fight over the same SKUs at once.
pub const STRATEGIES: [&str; 6] = [
    "atomic",
    "batched",
    "pessimistic",
    "optimistic",
    "redis_counter",
    "redis_lock",
];
/// What each SKU starts with.
pub const INITIAL_ON_HAND: i64 = 12;
/// The queue the workers drain.
pub const QUEUE: &str = "fq";
/// A claim's lease, ms (short, so that abandoned leases lapse and the sweeper rescues them
/// within the run).
pub const LEASE_MS: i64 = 1500;
/// Most sends of one operation before it is called unsettled.
pub const MAX_SENDS: u32 = 800;
/// The pause before a retry, ms.
pub const RETRY_PAUSE_MS: u64 = 50;
/// How long a send waits for its answer, ms.
pub const ANSWER_WAIT_MS: u64 = 10_000;
/// Percent of sends whose answer the client does not wait for.
pub const LOST_ANSWER_PERCENT: u32 = 5;

/// What the clients saw, beside the history.
#[derive(Debug, Default)]
pub struct Stats {
    /// Requests sent.
    pub sends: AtomicU64,
    /// Answers the clients stopped waiting for.
    pub answers_dropped: AtomicU64,
    /// Sends with no answer (no connection, cut) or a 502/503/504.
    pub unavailable: AtomicU64,
    /// Answers a fault may not give: a 5xx other than 502/503/504 (each in words).
    pub server_errors: Mutex<Vec<String>>,
}

/// One client: its id (its thread in the history), its server, its seeded choices, and what
/// it holds (its allocations, by operation number, and its lease).
pub struct Client {
    id: usize,
    url: String,
    http: reqwest::Client,
    rng: StdRng,
    seed: u64,
    history: Arc<History>,
    stats: Arc<Stats>,
    allocations: Vec<(u64, &'static str, i64, String)>,
    lease: Option<Lease>,
    n: u64,
    /// An operation of this client never settled: it stays in flight in the history, and the
    /// client invokes nothing more (one operation in flight per client).
    pub stuck: bool,
}

/// What an operation that never settled is recorded as in the verdicts (never as a return).
pub const UNSETTLED: &str = "unsettled";

/// A request: a POST (with a body and a key) or a GET.
struct Req {
    path: String,
    body: Option<Value>,
    key: Option<String>,
}

impl Client {
    /// Client `id` of the run of `seed`, on the server at `url`.
    pub fn new(id: usize, url: String, seed: u64, (history, stats): (Arc<History>, Arc<Stats>)) -> Client {
        Client {
            id,
            url,
            http: reqwest::Client::new(),
            rng: StdRng::seed_from_u64(seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            seed,
            history,
            stats,
            allocations: Vec::new(),
            lease: None,
            n: 0,
            stuck: false,
        }
    }

    /// Operations until `stop` (or `max_ops`), a short seeded pause between them.
    pub async fn run(mut self, stop: Arc<AtomicBool>, max_ops: usize) {
        for _ in 0..max_ops {
            if stop.load(Ordering::Relaxed) || self.stuck {
                break;
            }
            let call = self.choose();
            self.perform(call).await;
            let pause = self.rng.random_range(5..30);
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    }

    fn choose(&mut self) -> Call {
        let sku = SKUS[self.rng.random_range(0..SKUS.len())];
        match self.rng.random_range(0..100) {
            0..=24 => match self.lease.take() {
                None => Call::Claim,
                // A worker that died with its job: the lease lapses, the sweeper rescues it.
                Some(_) if self.rng.random_range(0..5) == 0 => Call::Claim,
                Some(l) => Call::Complete {
                    job: l.job,
                    attempt: l.attempt,
                    token: l.token,
                },
            },
            25..=34 if !self.allocations.is_empty() => {
                let (of, sku, quantity, _) = self.allocations[self.rng.random_range(0..self.allocations.len())].clone();
                Call::Cancel { sku, quantity, of }
            }
            25..=59 => Call::Allocate {
                sku,
                quantity: self.rng.random_range(1..=3),
                n: self.n,
            },
            60..=74 => Call::Adjust {
                sku,
                delta: self.rng.random_range(1..=3),
            },
            _ => Call::Read { sku },
        }
    }

    /// Invoke `call`, settle it, record its return, and keep what it handed out.
    pub async fn perform(&mut self, call: Call) -> Outcome {
        self.n += 1;
        let req = self.request(&call);
        self.history.invoke(self.id, call.clone());
        let outcome = self.settle(&req, &call).await;
        if outcome == Outcome::Other(UNSETTLED.into()) {
            // Left in flight: the checker may count it as applied or not.
            self.stuck = true;
            return outcome;
        }
        self.history.ret(self.id, outcome.clone());
        match (&call, &outcome) {
            (Call::Allocate { sku, quantity, n }, Outcome::Allocated { id }) => {
                self.allocations.push((*n, sku, *quantity, id.clone()));
            }
            (Call::Cancel { of, .. }, Outcome::Cancelled) => self.allocations.retain(|a| a.0 != *of),
            (Call::Claim, Outcome::Leased(lease)) => self.lease = lease.clone(),
            _ => {}
        }
        outcome
    }

    fn request(&self, call: &Call) -> Req {
        let key = Some(format!("f{}-{}-{}", self.seed, self.id, self.n));
        let post = |path: String, body: Value| Req {
            path,
            body: Some(body),
            key: key.clone(),
        };
        match call {
            Call::Allocate { sku, quantity, .. } => post(
                "/v1/allocations".into(),
                json!({"lines": [{"sku": sku, "quantity": quantity}], "strategy": STRATEGIES[self.id % STRATEGIES.len()]}),
            ),
            Call::Cancel { of, .. } => {
                let id = self
                    .allocations
                    .iter()
                    .find(|a| a.0 == *of)
                    .map_or("", |a| a.3.as_str());
                post(format!("/v1/allocations/{id}/cancel"), json!(null))
            }
            Call::Adjust { sku, delta } => post(format!("/v1/skus/{sku}/adjustments"), json!({ "delta": delta })),
            Call::Read { sku } => Req {
                path: format!("/v1/skus/{sku}"),
                body: None,
                key: None,
            },
            Call::Claim => post(
                format!("/v1/queues/{QUEUE}/claims"),
                json!({"max": 1, "lease_ms": LEASE_MS, "worker": format!("c{}", self.id)}),
            ),
            Call::Complete { job, token, .. } => {
                post(format!("/v1/jobs/{job}/complete"), json!({ "lease_token": token }))
            }
        }
    }

    /// Send `req` until a settled answer (a 2xx, or a 4xx other than a key still in use,
    /// `contention` or a rate limit), at most [`MAX_SENDS`] times.
    async fn settle(&mut self, req: &Req, call: &Call) -> Outcome {
        for _ in 0..MAX_SENDS {
            self.stats.sends.fetch_add(1, Ordering::Relaxed);
            let dropped = self.rng.random_range(0..100) < LOST_ANSWER_PERCENT;
            let wait = if dropped {
                Duration::from_millis(self.rng.random_range(1..40))
            } else {
                Duration::from_millis(ANSWER_WAIT_MS)
            };
            match tokio::time::timeout(wait, self.send(req)).await {
                Err(_) => {
                    self.stats.answers_dropped.fetch_add(1, Ordering::Relaxed);
                }
                Ok(None) => {
                    self.stats.unavailable.fetch_add(1, Ordering::Relaxed);
                }
                Ok(Some((status, body))) => {
                    let code = body["error"]["code"].as_str().unwrap_or("");
                    match status {
                        502..=504 => {
                            self.stats.unavailable.fetch_add(1, Ordering::Relaxed);
                        }
                        500.. => self
                            .stats
                            .server_errors
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(format!(
                                "{} {}: {status} {code}",
                                if req.body.is_some() { "POST" } else { "GET" },
                                req.path
                            )),
                        // Refused, nothing applied, retry (a key still running; `optimistic` out of
                        // attempts, a line whose rows kept changing): the client retries.
                        409 if code == "idempotency_key_in_use" || code == "contention" => {}
                        429 => {}
                        _ => return outcome(call, status, &body),
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(RETRY_PAUSE_MS)).await;
        }
        Outcome::Other(UNSETTLED.into())
    }

    /// One send: the status and the JSON body, or `None` with no answer.
    async fn send(&self, req: &Req) -> Option<(u16, Value)> {
        let url = format!("{}{}", self.url, req.path);
        let mut http = match &req.body {
            Some(body) if !body.is_null() => self.http.post(url).json(body),
            Some(_) => self.http.post(url),
            None => self.http.get(url),
        };
        if let Some(key) = &req.key {
            http = http.header("Idempotency-Key", key);
        }
        let resp = http.send().await.ok()?;
        let status = resp.status().as_u16();
        let body = resp.json::<Value>().await.ok()?;
        Some((status, body))
    }
}

/// What a settled answer says, for `call`.
fn outcome(call: &Call, status: u16, body: &Value) -> Outcome {
    let code = body["error"]["code"].as_str().unwrap_or("");
    let figure = |v: &Value| v.as_i64().unwrap_or(i64::MIN);
    match (call, status) {
        (Call::Allocate { .. }, 201) => Outcome::Allocated {
            id: body["id"].as_str().unwrap_or("").to_string(),
        },
        (Call::Allocate { .. }, 409) if code == "insufficient_stock" => Outcome::Short {
            available: figure(&body["error"]["available"]),
        },
        (Call::Cancel { .. }, 200) if body["status"] == "cancelled" => Outcome::Cancelled,
        (Call::Adjust { .. } | Call::Read { .. }, 200) => Outcome::Level {
            on_hand: figure(&body["on_hand"]),
            available: figure(&body["available"]),
        },
        (Call::Claim, 200) => Outcome::Leased(body["jobs"].as_array().and_then(|j| j.first()).map(|j| {
            Lease {
                job: figure(&j["id"]),
                attempt: figure(&j["attempt"]) as i32,
                token: j["lease_token"].as_str().unwrap_or("").to_string(),
                expires_ms: j["lease_expires_at"]
                    .as_str()
                    .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
                    .map_or(i64::MIN, |t| t.timestamp_millis()),
            }
        })),
        (Call::Complete { .. }, 200) if body["state"] == "completed" => Outcome::Completed,
        (Call::Complete { .. }, 409) if code == "lease_lost" => Outcome::LeaseLost,
        _ => Outcome::Other(format!("{status} {code}")),
    }
}
