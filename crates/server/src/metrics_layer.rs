//! Prometheus metrics: one process-wide recorder (metrics-exporter-prometheus), and a
//! middleware counting requests and timing them by route and status.

use axum::extract::Request;
use axum::response::Response;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Instant;

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's Prometheus handle, installing the recorder on first use. Latency
/// histograms use buckets from 100 µs to 10 s.
pub fn handle() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let buckets = [
                0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
            ];
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &buckets)
                .expect("non-empty buckets")
                .build_recorder();
            let handle = recorder.handle();
            // Another recorder may already be installed (e.g. by an embedding program); then
            // our handle renders only what it sees, which is still well-formed.
            if metrics::set_global_recorder(recorder).is_ok() {
                crate::metrics_catalog::describe();
            }
            handle
        })
        .clone()
}

/// Counts one thing in progress on a gauge while it lives (requests in flight, claims
/// waiting): up when made, down when dropped, whatever path ends it.
pub struct InProgress(&'static metrics::Gauge);

impl InProgress {
    /// `allot_http_requests_in_flight`: requests the edge has taken and not yet answered.
    pub fn request() -> InProgress {
        static GAUGE: OnceLock<metrics::Gauge> = OnceLock::new();
        InProgress::on(GAUGE.get_or_init(|| metrics::gauge!("allot_http_requests_in_flight")))
    }

    /// `allot_job_claims_waiting`: job claims long-polling now (`wait_ms > 0`).
    pub fn claim_waiting() -> InProgress {
        static GAUGE: OnceLock<metrics::Gauge> = OnceLock::new();
        InProgress::on(GAUGE.get_or_init(|| metrics::gauge!("allot_job_claims_waiting")))
    }

    fn on(gauge: &'static metrics::Gauge) -> InProgress {
        gauge.increment(1.0);
        InProgress(gauge)
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// What [`Tracked::record`] needs of a request, taken before it is handed on.
pub struct Tracked {
    method: &'static str,
    route: &'static str,
    start: Instant,
    /// The time it took (zero until [`Tracked::answered`]).
    took: std::time::Duration,
}

/// `s` as a `&'static str`, kept once per distinct value: label values come from bounded
/// sets (the router's route patterns, status codes), so the set stays small, and a label
/// made of a static string costs no allocation per request. Each worker thread looks in its
/// own copy first (no lock, FxHash: the values are the server's own text, not a client's);
/// the process-wide set is taken only for a value new to the thread.
pub(crate) fn interned(s: &str) -> &'static str {
    thread_local! {
        static KNOWN: std::cell::RefCell<rustc_hash::FxHashSet<&'static str>> = Default::default();
    }
    if let Some(v) = KNOWN.with_borrow(|known| known.get(s).copied()) {
        return v;
    }
    static SEEN: OnceLock<std::sync::Mutex<std::collections::HashSet<&'static str>>> = OnceLock::new();
    let v = {
        let mut seen = SEEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match seen.get(s) {
            Some(v) => *v,
            None => {
                let v: &'static str = Box::leak(s.to_string().into_boxed_str());
                seen.insert(v);
                v
            }
        }
    };
    KNOWN.with_borrow_mut(|known| known.insert(v));
    v
}

impl Tracked {
    /// Start timing `req` (its route `unmatched` until [`Tracked::answered`] says otherwise).
    pub fn start(req: &Request) -> Self {
        Tracked {
            method: method_label(req.method()),
            route: "unmatched",
            start: Instant::now(),
            took: std::time::Duration::ZERO,
        }
    }

    /// The request's method.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The request was answered, having matched `route` (a pattern, `/v1/skus/{sku}`) if
    /// it matched one: the time it took is read from the clock now, once for its log line,
    /// its stats and its metrics.
    pub fn answered(&mut self, route: Option<&'static str>) {
        if let Some(route) = route {
            self.route = route;
        }
        self.took = self.start.elapsed();
    }

    /// The route pattern it matched (`/v1/skus/{sku}`), or `unmatched`.
    pub fn route(&self) -> &'static str {
        self.route
    }

    /// The time from its arrival to its answer ([`Tracked::answered`]).
    pub fn took(&self) -> std::time::Duration {
        self.took
    }

    /// Count (`allot_http_requests_total`) and time (`allot_http_request_duration_seconds`)
    /// the request by method, matched route and status. Called by the edge
    /// ([`crate::boundary::edge`]), so refusals at the edge are counted too.
    pub fn record(self, resp: &Response) {
        let code = resp.status();
        let key = (at(self.method), at(self.route), code.as_u16());
        let seconds = self.took.as_secs_f64();
        HTTP_HANDLES.with_borrow_mut(|handles| {
            let (count, time) = handles.entry(key).or_insert_with(|| {
                let labels = [
                    ("method", self.method),
                    ("route", self.route),
                    ("status", interned(code.as_str())),
                ];
                (
                    metrics::counter!("allot_http_requests_total", &labels),
                    metrics::histogram!("allot_http_request_duration_seconds", &labels),
                )
            });
            count.increment(1);
            time.record(seconds);
        });
    }
}

thread_local! {
    /// Per worker thread, the request metrics' handles of each (method, route, status) seen,
    /// keyed by the label strings' addresses (each `&'static`, one per value) and the status:
    /// a request records through its handles without building a key or looking it up in the
    /// recorder's registry (a fifth of the edge's own instructions, `allot bench cost`).
    /// Bounded as the labels are: routes, methods and statuses. Hashed by FxHash (rustc's):
    /// the keys are this process's own addresses, nothing a client chooses.
    static HTTP_HANDLES: std::cell::RefCell<rustc_hash::FxHashMap<(Addr, Addr, u16), HttpHandles>> =
        Default::default();

    /// Per worker thread, counters by the addresses of their name and two label values.
    static COUNTERS: std::cell::RefCell<rustc_hash::FxHashMap<[Addr; 3], metrics::Counter>> = Default::default();
}

/// The request counter and the latency histogram of one label set.
type HttpHandles = (metrics::Counter, metrics::Histogram);

/// Where a string is and how long: with its length, an address names one string even where
/// one literal starts another.
type Addr = (usize, usize);

fn at(s: &str) -> Addr {
    (s.as_ptr() as usize, s.len())
}

/// Increment the counter `name` labelled `labels` (all `&'static`: a literal, or one value
/// per distinct string), through a handle kept per worker thread (see [`HTTP_HANDLES`]).
pub fn count(name: &'static str, labels: [(&'static str, &'static str); 2]) {
    let key = [at(name), at(labels[0].1), at(labels[1].1)];
    COUNTERS.with_borrow_mut(|counters| {
        counters
            .entry(key)
            .or_insert_with(|| metrics::counter!(name, &labels))
            .increment(1)
    });
}

/// The method as a label: one of the methods the API serves, else `other` (a client may
/// send any token as a method; labels must come from a bounded set).
fn method_label(m: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *m {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// Most distinct queue names used as metric labels; later queues share the label `other`
/// (queue names come from clients, and every label value is a time series).
pub const MAX_QUEUE_LABELS: usize = 64;

/// The label of a tenant's `queue`: `q` and the first 16 hex digits of the SHA-256 of
/// `tenant`, a NUL byte and `queue` — never the name, which is the tenant's (the metrics are
/// served without a key), and one series per tenant's queue, so tenants' counts are never
/// summed or overwritten by one another. An operator finds a queue's label with
/// `printf 'tenant\0queue' | sha256sum | cut -c1-16`. Bounded: after [`MAX_QUEUE_LABELS`]
/// labels this process has used, further queues share `other`.
pub fn queue_label(tenant: &str, queue: &str) -> String {
    use sha2::Digest;
    type Labels = std::collections::HashMap<(String, String), String>;
    static LABELS: OnceLock<std::sync::Mutex<Labels>> = OnceLock::new();
    let labels = LABELS.get_or_init(Default::default);
    let mut labels = labels.lock().unwrap_or_else(|p| p.into_inner());
    // A queue seen before is a map lookup: only a new queue is hashed (enqueues and claims
    // label every call).
    if let Some(label) = labels.get(&(tenant.to_string(), queue.to_string())) {
        return label.clone();
    }
    if labels.len() >= MAX_QUEUE_LABELS {
        return "other".into();
    }
    let digest = sha2::Sha256::new()
        .chain_update(tenant.as_bytes())
        .chain_update([0u8])
        .chain_update(queue.as_bytes())
        .finalize();
    let label: String = std::iter::once("q".to_string())
        .chain(digest.iter().take(8).map(|b| format!("{b:02x}")))
        .collect();
    labels.insert((tenant.to_string(), queue.to_string()), label.clone());
    label
}

/// How often the recorded histogram samples are drained ([`upkeep`]), ms.
pub const UPKEEP_MS: u64 = 5_000;

/// Drain recorded histogram samples into their buckets every `every_ms` ([`UPKEEP_MS`]
/// unless `background_interval_ms` says otherwise). The recorder queues raw samples until a
/// render or an upkeep; without this a server nobody scrapes would grow without bound.
pub async fn upkeep(every_ms: u64) {
    let handle = handle();
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(every_ms.max(1)));
    loop {
        tick.tick().await;
        handle.run_upkeep();
    }
}
