//! `allot bench feed`: what the change feed costs a `batched` hot SKU, and how fast a
//! reader follows the feed.
//!
//! The same command runs the flash sale with the feed and without it, alternating (ABBA,
//! after a warm-up sale that is not counted), on one
//! PostgreSQL database: "without" disables the trigger that marks ledger entries for the
//! sequencer (`ALTER TABLE ledger DISABLE TRIGGER ledger_events`, the whole of the feed's cost
//! on the writer's path: no mark, so no stock event either) and enables it again after
//! (the single statement of `atomic`, `segmented` and `redis_counter` writes its own mark,
//! V28, so on that path "without" still marks: its ratio understates the feed's cost there). "With"
//! also carries the sequencer's work, which runs in the same server on the same machine
//! during the sale. Then one Server-Sent Events reader follows the feed from its start, and
//! its events per second are the feed's throughput.

use crate::error::BenchError;
use crate::flash_sale::{flash_sale, FlashSaleOptions, StrategyReport};
use serde::Serialize;
use std::time::{Duration, Instant};

/// One flash sale, with the feed or without it.
#[derive(Debug, Clone, Serialize)]
pub struct FeedRound {
    /// Whether the stock events were written.
    pub feed: bool,
    /// 1-based round.
    pub round: u32,
    /// The flash sale's figures.
    pub report: StrategyReport,
}

/// A stream reader following the feed.
#[derive(Debug, Clone, Serialize)]
pub struct StreamReport {
    /// Events read.
    pub events: u64,
    /// Seconds it took.
    pub elapsed_s: f64,
    /// Events per second.
    pub events_per_s: f64,
}

/// Turn the ledger's marking trigger (the stock events) on or off in the database at `database_url`.
pub async fn set_feed(database_url: &str, on: bool) -> Result<(), BenchError> {
    let target = allot_postgres::PgTarget::parse(database_url).map_err(|e| BenchError::Setup(e.to_string()))?;
    let (client, conn) = target.connect().await.map_err(|e| BenchError::Setup(e.to_string()))?;
    let task = tokio::spawn(conn);
    let verb = if on { "ENABLE" } else { "DISABLE" };
    client
        .batch_execute(&format!("ALTER TABLE ledger {verb} TRIGGER ledger_events"))
        .await
        .map_err(|e| BenchError::Setup(format!("{verb} the feed's trigger: {e}")))?;
    drop(client);
    let _ = task.await;
    Ok(())
}

/// `rounds` flash sales with the feed and as many without it, after one warm-up sale that is
/// not counted (the first sale on a fresh database pays for its caches and connections), in
/// ABBA order (with/without, then without/with, ...) so a drift of the machine during the
/// run weighs on both sides alike.
pub async fn rounds(opts: &FlashSaleOptions, database_url: &str, rounds: u32) -> Result<Vec<FeedRound>, BenchError> {
    flash_sale(opts).await?;
    let mut out = Vec::new();
    for round in 1..=rounds {
        let order = if round % 2 == 1 { [true, false] } else { [false, true] };
        for feed in order {
            set_feed(database_url, feed).await?;
            let ran = flash_sale(opts).await;
            set_feed(database_url, true).await?;
            let report = ran?
                .into_iter()
                .next()
                .ok_or_else(|| BenchError::Setup("the flash sale ran no strategy".into()))?;
            out.push(FeedRound { feed, round, report });
        }
    }
    Ok(out)
}

/// Follow `url`'s feed from its start with one stream until `events` were read, within
/// `deadline`.
pub async fn follow(url: &str, events: u64, deadline: Duration) -> Result<StreamReport, BenchError> {
    let client = reqwest::Client::new();
    let started = Instant::now();
    let mut resp = client
        .get(format!("{url}/v1/events/stream"))
        .header("last-event-id", "0")
        .send()
        .await?;
    let (mut read, mut text) = (0u64, String::new());
    while read < events {
        let left = deadline.saturating_sub(started.elapsed());
        let chunk = tokio::time::timeout(left, resp.chunk())
            .await
            .map_err(|_| BenchError::Setup(format!("the stream gave {read} of {events} events in time")))??
            .ok_or_else(|| BenchError::Setup("the stream ended".into()))?;
        text.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = text.find("\n\n") {
            read += u64::from(text[..end].lines().any(|l| l.starts_with("id:")));
            text.drain(..end + 2);
        }
    }
    let elapsed_s = started.elapsed().as_secs_f64();
    Ok(StreamReport {
        events: read,
        elapsed_s,
        events_per_s: read as f64 / elapsed_s.max(1e-9),
    })
}

/// The default tenant's highest cursor (what a reader from the start must read).
pub async fn top(url: &str) -> Result<i64, BenchError> {
    let mut after = 0i64;
    loop {
        let page: serde_json::Value = reqwest::get(format!("{url}/v1/events?after={after}&limit=1000"))
            .await?
            .json()
            .await?;
        let next = page["next"].as_i64().unwrap_or(after);
        if next == after {
            return Ok(after);
        }
        after = next;
    }
}

/// The Markdown table: each round's figures and the mean ratio without/with the feed.
pub fn render(rounds: &[FeedRound], stream: &StreamReport) -> String {
    let mut out = String::from("| round | feed | allocations/s | p99 ms | invariants |\n|---:|---|---:|---:|---|\n");
    for r in rounds {
        let ok = if r.report.violations.is_empty() { "ok" } else { "BROKEN" };
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.2} | {ok} |\n",
            r.round,
            if r.feed { "on" } else { "off" },
            r.report.allocations_per_s,
            r.report.latency_us_p99 as f64 / 1000.0
        ));
    }
    let mean = |feed: bool| {
        let xs: Vec<f64> = rounds
            .iter()
            .filter(|r| r.feed == feed)
            .map(|r| r.report.allocations_per_s)
            .collect();
        xs.iter().sum::<f64>() / xs.len().max(1) as f64
    };
    let (on, off) = (mean(true), mean(false));
    out.push_str(&format!(
        "\nwith the feed / without: {:.2} ({:.1} % cost)\nstream reader: {} events in {:.2} s = {:.0} events/s\n",
        on / off.max(1e-9),
        (1.0 - on / off.max(1e-9)) * 100.0,
        stream.events,
        stream.elapsed_s,
        stream.events_per_s
    ));
    out
}
