//! What this instance served in the last minutes, per tenant: requests, server errors,
//! latency percentiles and allocation outcomes in [`BUCKET_MS`] buckets over
//! [`BUCKETS`] of them (`GET /v1/stats`, the console's overview). Prometheus keeps the long
//! history (`/metrics`); this is the short one a person looks at without a Prometheus.
//!
//! Bounded: at most [`MAX_TENANTS`] tenants (the one idle longest gives way), each with
//! [`BUCKETS`] buckets of a 1-significant-figure HdrHistogram (Gil Tene's HdrHistogram,
//! the `hdrhistogram` crate): about 1.5 KiB per bucket in use.

use hdrhistogram::Histogram;
use serde::Serialize;
// Keyed by tenant: foldhash's seeded hasher (SipHash cost more than the rest of a count).
use foldhash::HashMap;
use std::sync::Mutex;
use std::time::Instant;
use utoipa::ToSchema;

/// The width of a bucket, ms.
pub const BUCKET_MS: u64 = 10_000;
/// Buckets kept (5 minutes of 10 s).
pub const BUCKETS: usize = 30;
/// Tenants kept at once.
pub const MAX_TENANTS: usize = 256;
/// The longest latency told apart, µs (longer ones count as this).
const MAX_LATENCY_US: u64 = 600_000_000;

/// How an allocation request ended (`POST /v1/allocations`, `POST /v1/unit-allocations`,
/// `POST /v1/holds/{id}/confirm`), by the answer's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct AllocationOutcomes {
    /// `2xx`: allocated (or replayed).
    pub made: u64,
    /// `409`: refused (not enough stock, a conflict of state or idempotency key).
    pub refused: u64,
    /// Other `4xx`: the request was invalid, unauthorized or not found.
    pub rejected: u64,
    /// `5xx`: our fault or a dependency unavailable.
    pub failed: u64,
}

impl AllocationOutcomes {
    fn add(&mut self, status: u16) {
        match status {
            200..=299 => self.made += 1,
            409 => self.refused += 1,
            400..=499 => self.rejected += 1,
            _ => self.failed += 1,
        }
    }

    fn merge(&mut self, o: &AllocationOutcomes) {
        self.made += o.made;
        self.refused += o.refused;
        self.rejected += o.rejected;
        self.failed += o.failed;
    }
}

/// One bucket as `GET /v1/stats` shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RequestBucket {
    /// Seconds since the instance started at the bucket's start.
    pub start_s: u64,
    /// Requests answered.
    pub requests: u64,
    /// Of them, answered `5xx`.
    pub server_errors: u64,
    /// Median latency, µs (0 without requests).
    pub latency_us_p50: u64,
    /// 99th percentile latency, µs (0 without requests).
    pub latency_us_p99: u64,
}

struct Bucket {
    epoch: u64,
    requests: u64,
    server_errors: u64,
    latency_us: Histogram<u32>,
    allocations: AllocationOutcomes,
}

impl Bucket {
    fn new(epoch: u64) -> Bucket {
        Bucket {
            epoch,
            requests: 0,
            server_errors: 0,
            latency_us: Histogram::new_with_bounds(1, MAX_LATENCY_US, 1).expect("static bounds"),
            allocations: AllocationOutcomes::default(),
        }
    }
}

#[derive(Default)]
struct Ring {
    buckets: Vec<Bucket>,
    last_epoch: u64,
}

impl Ring {
    /// Count `s` in the bucket of `epoch`.
    fn count(&mut self, epoch: u64, s: &Served<'_>) {
        let b = self.bucket(epoch);
        b.requests += 1;
        if s.status >= 500 {
            b.server_errors += 1;
        }
        b.latency_us.saturating_record(s.latency_us.clamp(1, MAX_LATENCY_US));
        if is_allocation(s.method, s.route) {
            b.allocations.add(s.status);
        }
    }

    fn bucket(&mut self, epoch: u64) -> &mut Bucket {
        self.last_epoch = epoch;
        let i = (epoch % BUCKETS as u64) as usize;
        if self.buckets.len() <= i {
            self.buckets.resize_with(i + 1, || Bucket::new(u64::MAX));
        }
        if self.buckets[i].epoch != epoch {
            self.buckets[i] = Bucket::new(epoch);
        }
        &mut self.buckets[i]
    }
}

/// One request as [`Recent::record`] takes it.
pub struct Served<'a> {
    /// The tenant it acted in.
    pub tenant: &'a allot_core::Tenant,
    /// `GET`, `POST`, …
    pub method: &'a str,
    /// The route pattern (`/v1/allocations`).
    pub route: &'a str,
    /// The answer's status.
    pub status: u16,
    /// How long it took, µs.
    pub latency_us: u64,
}

/// This instance (its id, made at its start, and when it started) and the recent requests of
/// every tenant on it.
pub struct Recent {
    id: String,
    started_at: chrono::DateTime<chrono::Utc>,
    started: Instant,
    tenants: Mutex<HashMap<allot_core::Tenant, Ring>>,
}

/// What [`Recent::of`] answers for one tenant.
pub struct TenantRecent {
    /// Every bucket of the window since the instance started, oldest first (empty ones as
    /// zeros): [`BUCKETS`] once it has run that long.
    pub requests: Vec<RequestBucket>,
    /// Allocation outcomes over the window.
    pub allocations: AllocationOutcomes,
}

fn is_allocation(method: &str, route: &str) -> bool {
    method == "POST"
        && matches!(
            route,
            "/v1/allocations" | "/v1/unit-allocations" | "/v1/holds/{id}/confirm"
        )
}

impl Recent {
    /// A new instance, started at `started_at` (the store's clock).
    pub fn new(started_at: chrono::DateTime<chrono::Utc>) -> Recent {
        Recent {
            id: uuid::Uuid::new_v4().to_string(),
            started_at,
            started: Instant::now(),
            tenants: Mutex::new(HashMap::default()),
        }
    }

    /// This instance's id (UUID v4 text, made at its start).
    pub fn instance_id(&self) -> &str {
        &self.id
    }

    /// When this instance started (the store's clock).
    pub fn started_at(&self) -> chrono::DateTime<chrono::Utc> {
        self.started_at
    }

    /// Seconds since this instance started.
    pub fn uptime_s(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    fn epoch(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX) / BUCKET_MS
    }

    /// Count one answered request.
    pub fn record(&self, s: Served<'_>) {
        let epoch = self.epoch();
        let mut tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        // One lookup for a tenant seen before (every request but its first).
        if let Some(ring) = tenants.get_mut(s.tenant) {
            ring.count(epoch, &s);
            return;
        }
        if tenants.len() >= MAX_TENANTS {
            let idlest = tenants.iter().min_by_key(|(_, r)| r.last_epoch).map(|(t, _)| t.clone());
            if let Some(t) = idlest {
                tenants.remove(&t);
            }
        }
        tenants.entry(s.tenant.clone()).or_default().count(epoch, &s);
    }

    /// `tenant`'s last [`BUCKETS`] buckets (those since the start while fewer), the current
    /// one last.
    pub fn of(&self, tenant: &allot_core::Tenant) -> TenantRecent {
        let now = self.epoch();
        let first = (now + 1).saturating_sub(BUCKETS as u64);
        let tenants = self.tenants.lock().unwrap_or_else(|p| p.into_inner());
        let ring = tenants.get(tenant);
        let mut allocations = AllocationOutcomes::default();
        let requests = (first..=now)
            .map(|epoch| {
                let found = ring.and_then(|r| r.buckets.get((epoch % BUCKETS as u64) as usize));
                let b = found.filter(|b| b.epoch == epoch);
                if let Some(b) = b {
                    allocations.merge(&b.allocations);
                }
                RequestBucket {
                    start_s: epoch * BUCKET_MS / 1000,
                    requests: b.map_or(0, |b| b.requests),
                    server_errors: b.map_or(0, |b| b.server_errors),
                    latency_us_p50: b.map_or(0, |b| b.latency_us.value_at_quantile(0.5)),
                    latency_us_p99: b.map_or(0, |b| b.latency_us.value_at_quantile(0.99)),
                }
            })
            .collect();
        TenantRecent { requests, allocations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served<'a>(tenant: &'a allot_core::Tenant, route: &'a str, status: u16, latency_us: u64) -> Served<'a> {
        Served {
            tenant,
            method: "POST",
            route,
            status,
            latency_us,
        }
    }

    #[test]
    fn counts_per_tenant_with_percentiles_and_outcomes() {
        let r = Recent::new(chrono::Utc::now());
        let (a, b) = (allot_core::Tenant::default_tenant(), allot_core::Tenant::stored("b"));
        for i in 1..=100 {
            r.record(served(&a, "/v1/allocations", if i <= 90 { 201 } else { 409 }, i * 100));
        }
        r.record(served(&a, "/v1/skus", 500, 5));
        r.record(served(&a, "/v1/allocations", 400, 5));
        r.record(served(&b, "/v1/allocations", 201, 5));
        let got = r.of(&a);
        assert_eq!(got.requests.len(), 1, "the first bucket since the start");
        let total: u64 = got.requests.iter().map(|b| b.requests).sum();
        assert_eq!(total, 102);
        assert_eq!(got.requests.iter().map(|b| b.server_errors).sum::<u64>(), 1);
        let expected = AllocationOutcomes {
            made: 90,
            refused: 10,
            rejected: 1,
            failed: 0,
        };
        assert_eq!(got.allocations, expected);
        let last = got.requests.iter().rev().find(|b| b.requests > 0).unwrap();
        // 1 significant figure: within 10 %.
        assert!(
            (4_500..=5_500).contains(&last.latency_us_p50),
            "{}",
            last.latency_us_p50
        );
        assert!(
            (9_000..=11_000).contains(&last.latency_us_p99),
            "{}",
            last.latency_us_p99
        );
        assert_eq!(r.of(&b).allocations.made, 1);
    }

    #[test]
    fn the_idlest_tenant_gives_way_at_the_bound() {
        let r = Recent::new(chrono::Utc::now());
        let tenants: Vec<_> = (0..=MAX_TENANTS)
            .map(|i| allot_core::Tenant::stored(format!("t{i}")))
            .collect();
        for t in &tenants {
            r.record(served(t, "/v1/skus", 200, 1));
        }
        assert_eq!(r.tenants.lock().unwrap().len(), MAX_TENANTS);
    }
}
