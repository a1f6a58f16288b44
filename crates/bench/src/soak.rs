//! The soak (`allot chaos --scenario soak`): a long mixed load (allocations under `batched`
//! and `atomic`, stock holds confirmed or released, unit holds released, bookings cancelled,
//! jobs enqueued, claimed and completed) against an `allot serve` child process on a
//! PostgreSQL cluster of the suite's own, with the server's resident memory, open file
//! descriptors and the load's p99 sampled every interval; they must stay flat. A bench run
//! (30 minutes by default), with a few seconds' version in the test suite.

use crate::chaos::{start_server, wait_healthy};
use crate::cluster::{free_port, PgCluster};
use crate::error::BenchError;
use serde::Serialize;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long and how often.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// The `allot` binary to run as the server.
    pub allot_bin: std::path::PathBuf,
    /// Concurrent clients.
    pub clients: usize,
    /// Length of the run, seconds.
    pub duration_s: u64,
    /// Sampling interval, seconds.
    pub sample_s: u64,
}

/// One interval's figures.
#[derive(Debug, Clone, Serialize)]
pub struct SoakSample {
    /// Seconds since the start, at the end of the interval.
    pub at_s: u64,
    /// The server's resident memory, KiB (`VmRSS`).
    pub rss_kib: u64,
    /// The server's open file descriptors.
    pub open_fds: u64,
    /// Requests answered in the interval.
    pub requests: u64,
    /// 99th percentile latency of the interval, µs.
    pub latency_us_p99: u64,
}

/// The soak's samples and what broke.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    /// One per interval.
    pub samples: Vec<SoakSample>,
    /// Failed checks (empty: flat).
    pub violations: Vec<String>,
}

fn proc_figures(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count() as u64);
    (rss, fds)
}

/// The mixed load: each client cycles through allocations, stock holds (confirmed or
/// released), unit holds (released), bookings (cancelled) and jobs (claimed and completed).
async fn client_loop(
    url: String,
    n: u64,
    stop: Arc<AtomicBool>,
    hist: Arc<Mutex<hdrhistogram::Histogram<u64>>>,
    count: Arc<AtomicU64>,
) {
    let client = reqwest::Client::new();
    let mut i = n;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let started = Instant::now();
        if step(&client, &url, i).await {
            let us = started.elapsed().as_micros() as u64;
            hist.lock().unwrap_or_else(|p| p.into_inner()).saturating_record(us);
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// POST `body` to `path`; the answer's body when it is 2xx.
async fn ok(client: &reqwest::Client, url: &str, path: &str, body: serde_json::Value) -> Option<serde_json::Value> {
    match crate::load::post(client, &format!("{url}{path}"), &body).await {
        Ok((200..=299, b)) => Some(b),
        _ => None,
    }
}

/// Operation `i` of a client (`i >> 40` is the client): half allocations, then the rest of
/// the mix in turn. Whether it succeeded.
async fn step(client: &reqwest::Client, url: &str, i: u64) -> bool {
    let strategy = if i.is_multiple_of(2) { "batched" } else { "atomic" };
    let line = json!([{"sku": "SOAK", "quantity": 1}]);
    match i % 10 {
        0..=4 => ok(
            client,
            url,
            "/v1/allocations",
            json!({"lines": line, "strategy": strategy}),
        )
        .await
        .is_some(),
        5 | 6 => {
            let verb = if i % 10 == 5 { "confirm" } else { "release" };
            let body = json!({"lines": line, "ttl_ms": 60000, "strategy": strategy});
            hold_then(client, url, "/v1/holds", body, verb).await
        }
        7 => {
            let claim = json!({"sku": "SOAKU", "quantity": 1, "hold_ttl_ms": 60000});
            hold_then(client, url, "/v1/unit-allocations", claim, "release").await
        }
        8 => book_and_cancel(client, url, i).await,
        _ => job_round(client, url, i).await,
    }
}

/// Make a hold at `path`, then `verb` (confirm or release) it.
async fn hold_then(client: &reqwest::Client, url: &str, path: &str, body: serde_json::Value, verb: &str) -> bool {
    let Some(h) = ok(client, url, path, body).await else {
        return false;
    };
    let path = format!("/v1/holds/{}/{verb}", h["id"].as_str().unwrap_or_default());
    ok(client, url, &path, json!({})).await.is_some()
}

/// Book a free hour on the client's own resource, then cancel it.
async fn book_and_cancel(client: &reqwest::Client, url: &str, i: u64) -> bool {
    let start = chrono::DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z").expect("a date")
        + chrono::Duration::hours((i & 0xFFFF) as i64);
    let end = start + chrono::Duration::hours(1);
    let path = format!("/v1/resources/SOAK-{}/bookings", i >> 40);
    let body = json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(), "holder": "soak"});
    let Some(b) = ok(client, url, &path, body).await else {
        return false;
    };
    let id = b["id"].as_str().unwrap_or_default();
    client
        .delete(format!("{url}/v1/bookings/{id}"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

/// Enqueue a job, claim one, complete it.
async fn job_round(client: &reqwest::Client, url: &str, i: u64) -> bool {
    if ok(
        client,
        url,
        "/v1/queues/SOAKQ/jobs",
        json!({"jobs": [{"payload": {"i": i}}]}),
    )
    .await
    .is_none()
    {
        return false;
    }
    let claim = json!({"max": 1, "lease_ms": 60000});
    let Some(c) = ok(client, url, "/v1/queues/SOAKQ/claims", claim).await else {
        return false;
    };
    match c["jobs"].as_array().and_then(|j| j.first()) {
        Some(j) => {
            let path = format!("/v1/jobs/{}/complete", j["id"]);
            ok(client, url, &path, json!({"lease_token": j["lease_token"]}))
                .await
                .is_some()
        }
        None => true,
    }
}

/// Run the soak and check that memory, descriptors and p99 stay flat.
pub async fn soak(opts: &SoakOptions) -> Result<SoakReport, BenchError> {
    let cluster = tokio::task::block_in_place(PgCluster::start)?;
    let port = free_port()?;
    let mut server = start_server(&opts.allot_bin, port, &cluster.url(), None).await?;
    wait_healthy(&server.url, Duration::from_secs(30)).await?;
    let body = json!({"sku": "SOAK", "on_hand": 100_000_000_000i64});
    let setup = reqwest::Client::new();
    crate::load::post(&setup, &format!("{}/v1/skus", server.url), &body).await?;
    // Units for the unit holds (each is released, so a few per client suffice).
    let units: Vec<serde_json::Value> = (0..opts.clients.max(1) * 4)
        .map(|u| json!({"serial": format!("U{u}")}))
        .collect();
    crate::load::post(
        &setup,
        &format!("{}/v1/skus/SOAKU/units", server.url),
        &json!({ "units": units }),
    )
    .await?;
    let pid = server
        .child
        .id()
        .ok_or_else(|| BenchError::Setup("the server has no pid".into()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let hist = Arc::new(Mutex::new(
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3)
            .map_err(|e| BenchError::Setup(e.to_string()))?,
    ));
    let count = Arc::new(AtomicU64::new(0));
    let mut set = tokio::task::JoinSet::new();
    for c in 0..opts.clients.max(1) {
        set.spawn(client_loop(
            server.url.clone(),
            (c as u64) << 40,
            stop.clone(),
            hist.clone(),
            count.clone(),
        ));
    }
    let started = Instant::now();
    let mut samples = Vec::new();
    while started.elapsed() < Duration::from_secs(opts.duration_s) {
        tokio::time::sleep(Duration::from_secs(opts.sample_s.max(1))).await;
        let (rss_kib, open_fds) = proc_figures(pid);
        let mut h = hist.lock().unwrap_or_else(|p| p.into_inner());
        samples.push(SoakSample {
            at_s: started.elapsed().as_secs(),
            rss_kib,
            open_fds,
            requests: count.swap(0, Ordering::Relaxed),
            latency_us_p99: h.value_at_quantile(0.99),
        });
        h.reset();
    }
    stop.store(true, Ordering::Relaxed);
    while set.join_next().await.is_some() {}
    let _ = server.child.kill().await;
    let violations = flatness(&samples);
    Ok(SoakReport { samples, violations })
}

/// Intervals after the warm-up below which the p99 is not judged: on a shared machine one
/// interval's p99 moves with a checkpoint or a neighbour's build, so the trend needs several.
pub const MIN_LATENCY_INTERVALS: usize = 4;

/// Flat: from the second sample (the first is warm-up) to the last, memory grows by at most
/// half plus 32 MiB, descriptors by at most 32, and every interval answered requests. With at
/// least [`MIN_LATENCY_INTERVALS`] intervals after the warm-up, the median p99 of their later
/// half is also at most triple that of their earlier half (medians, so that one stalled
/// interval is not a trend).
fn flatness(samples: &[SoakSample]) -> Vec<String> {
    let mut v = Vec::new();
    if samples.iter().any(|s| s.requests == 0) {
        v.push("an interval answered no request".into());
    }
    if let (Some(base), Some(last)) = (samples.get(1).or(samples.first()), samples.last()) {
        if last.rss_kib > base.rss_kib + base.rss_kib / 2 + 32 * 1024 {
            v.push(format!("memory grew from {} to {} KiB", base.rss_kib, last.rss_kib));
        }
        if last.open_fds > base.open_fds + 32 {
            v.push(format!("descriptors grew from {} to {}", base.open_fds, last.open_fds));
        }
    }
    let judged = samples.get(1..).unwrap_or_default();
    if judged.len() >= MIN_LATENCY_INTERVALS {
        let (early, late) = judged.split_at(judged.len() / 2);
        let (early, late) = (median_p99(early), median_p99(late));
        if late > early.max(1_000) * 3 {
            v.push(format!("median p99 grew from {early} to {late} µs"));
        }
    }
    v
}

/// The median of the samples' p99s (the upper one of an even count), µs.
fn median_p99(samples: &[SoakSample]) -> u64 {
    let mut p99s: Vec<u64> = samples.iter().map(|s| s.latency_us_p99).collect();
    p99s.sort_unstable();
    p99s.get(p99s.len() / 2).copied().unwrap_or(0)
}

/// The soak's table (Markdown).
pub fn render_soak(r: &SoakReport) -> String {
    let mut s = String::from("| at s | RSS KiB | open fds | requests | p99 µs |\n|---:|---:|---:|---:|---:|\n");
    for x in &r.samples {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            x.at_s, x.rss_kib, x.open_fds, x.requests, x.latency_us_p99
        ));
    }
    s.push_str(if r.violations.is_empty() {
        "\nsoak: flat\n"
    } else {
        "\nsoak: NOT flat\n"
    });
    if r.samples.len().saturating_sub(1) < MIN_LATENCY_INTERVALS {
        s.push_str(&format!(
            "(p99 not judged: fewer than {MIN_LATENCY_INTERVALS} intervals after the warm-up)\n"
        ));
    }
    for v in &r.violations {
        s.push_str(&format!("- {v}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{flatness, SoakSample};

    fn run(p99s: &[u64], rss_kib: &[u64]) -> Vec<SoakSample> {
        p99s.iter()
            .zip(rss_kib)
            .enumerate()
            .map(|(i, (&latency_us_p99, &rss_kib))| SoakSample {
                at_s: i as u64 * 60,
                rss_kib,
                open_fds: 40,
                requests: 1000,
                latency_us_p99,
            })
            .collect()
    }

    /// One stalled interval is not a trend; a p99 that stays tripled is; too few intervals
    /// judge memory and descriptors only; memory that grows past half plus 32 MiB fails.
    #[test]
    fn flat_by_medians() {
        let rss = [50_000; 7];
        assert!(flatness(&run(&[90_000, 30_000, 28_000, 140_000, 29_000, 31_000, 30_000], &rss)).is_empty());
        let grew = flatness(&run(&[90_000, 30_000, 28_000, 29_000, 95_000, 120_000, 100_000], &rss));
        assert_eq!(grew, ["median p99 grew from 29000 to 100000 µs"]);
        assert!(flatness(&run(&[30_000, 28_000, 137_000], &rss[..3])).is_empty());
        let leak = flatness(&run(&[1, 1, 1], &[50_000, 50_000, 120_000]));
        assert_eq!(leak, ["memory grew from 50000 to 120000 KiB"]);
    }
}
