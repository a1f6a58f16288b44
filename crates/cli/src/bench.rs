//! `allot bench …`: the flags of each workload, mapped to the options of `allot-bench`, which
//! runs and reports it; the in-process server a run loads when it was given no `--url`.

use allot_bench::orchestrate::{flow_runs, queue_runs, report::comma_list, stock_runs};

use crate::compare::CompareArgs;
use crate::target::{on_target, on_target_with, temp_sqlite, LoadArgs, TargetArgs};
use allot_server::ServerConfig;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum BenchCmd {
    /// N single-unit allocations from C clients against stock k, per strategy, with the
    /// invariant checks (successes == min(N, k), final on_hand == k - successes, audit clean).
    FlashSale(FlashSaleArgs),
    /// Flows of hold -> confirm / release / abandon (expire) from C clients per stock
    /// strategy, then the conservation check (nothing held, on_hand = k - confirmed, audit clean).
    Holds(HoldsArgs),
    /// PostgreSQL: N checkouts (a hold over HTTP, then an order with `--work-ms` of work)
    /// from C clients on one hot SKU, the hold confirmed over HTTP (the reference), or with
    /// `allot.confirm_hold` inside the order's transaction before or after the work; with the
    /// checks (every order with its stock, on_hand = k - N, audit clean).
    Checkout(CheckoutArgs),
    /// Claims of 1-5 units from a large pool and from a nearly empty one per unit strategy,
    /// with the checks (no unit twice, units of successes = what left the pool,
    /// insufficient_stock only when fewer were left).
    Units(UnitsArgs),
    /// Random `--days`-long bookings from C clients over R resources per booking strategy,
    /// then the overlap check (only `naive` may double-book).
    Bookings(BookingsArgs),
    /// P producers enqueue J jobs, W worker pools (the allot-worker library, straight on the
    /// store) claim and complete them in batches; some jobs fail once, some pools are killed
    /// mid-job; then the total-queue check (every job completed exactly once, none lost).
    Queue(QueueArgs),
    /// One heavy key's jobs enqueued first, then many light keys' few, claimed oldest first
    /// and fair (`fair_by: partition_key`) by one claimer straight on the store: the jobs
    /// claimed before every light key had started one, and the drain's jobs per second.
    Fairness(FairnessArgs),
    /// What the change feed costs a hot SKU (`batched` by default: the flash sale with and
    /// without the feed's trigger, ABBA after a warm-up, on one PostgreSQL database), and the
    /// events per second one Server-Sent Events reader follows.
    Feed(FeedArgs),
    /// Every workload (hot SKU, spread, holds, units, bookings, queue, the batch API) under
    /// every strategy of the backend in one run: a Markdown table, a JSON file and a PNG chart
    /// (throughput and p99), with each workload's reference and allot's ratio to it: a no-op
    /// handler (hot SKU), pgbench on the same database (PostgreSQL), graphile-worker (the
    /// queue, with Node.js and npm), redis-benchmark (with --redis-url).
    Compare(CompareArgs),
    /// A flash sale across L locations (5 by default): N allocations of 1..=3 units from C
    /// clients with placements (priority, most available, ranked lists) and splits, per
    /// strategy, with the per-location checks; on PostgreSQL with pgbench installed, the
    /// textbook placement statement on the same database as the reference.
    Locations(crate::locations::LocationsArgs),
    /// N single-unit allocations on one hot SKU through `POST /v1/batch`, B operations per
    /// batch, from C connections each sending one batch at a time (one connection by
    /// default), per strategy, with the checks (successes == min(N, k), on_hand == k -
    /// successes, audit clean).
    Batch(BatchArgs),
    /// A flash sale whose hot SKU moves: N single-unit allocations from C clients over M
    /// SKUs in P phases, `--hot-share` of each phase's requests on that phase's hot SKU, under
    /// `auto` and each fixed strategy, with the per-SKU checks.
    Auto(AutoArgs),
    /// The console's calls (overview, queues, jobs by filter, the bulk count, SKU search and
    /// filters, events), one at a time, on a server filled with J jobs and S SKUs, beside
    /// `GET /livez` as the no-op reference; fails when the overview's p99 is 100 ms or more.
    Console(crate::console_bench::ConsoleArgs),
    /// What each hot path costs per operation in counts that do not swing with the hour:
    /// server instructions and heap allocations (callgrind), PostgreSQL statements and round
    /// trips (a counting proxy), WAL bytes and rows written (pg_walinspect), on a cluster of
    /// its own, beside a no-op handler and the textbook SQL; `--check` holds them to a
    /// baseline, `--rev` counts a revision beside this build.
    Cost(crate::cost::CostArgs),
    /// Serve the no-op handler alone (the HTTP floor `bench cost` counts).
    #[command(hide = true)]
    NoopServe(crate::cost::NoopServeArgs),
}

/// Run `cmd`.
pub(crate) async fn bench(cmd: BenchCmd) -> anyhow::Result<()> {
    match cmd {
        BenchCmd::FlashSale(a) => {
            on_target(a.load.target.clone(), |url| async move {
                stock_runs::flash_sale(&a.options(url), a.load.json()).await
            })
            .await
        }
        BenchCmd::Holds(a) => {
            on_target(a.load.target.clone(), |url| async move {
                flow_runs::holds(&a.options(url), a.load.json()).await
            })
            .await
        }
        BenchCmd::Checkout(a) => checkout(a).await,
        BenchCmd::Units(a) => {
            on_target(a.load.target.clone(), |url| async move {
                flow_runs::units(&a.options(url), a.load.json()).await
            })
            .await
        }
        BenchCmd::Bookings(a) => {
            on_target(a.load.target.clone(), |url| async move {
                flow_runs::bookings(&a.options(url), a.load.json()).await
            })
            .await
        }
        BenchCmd::Queue(a) => queue(a).await,
        BenchCmd::Fairness(a) => {
            let url = a
                .database_url
                .clone()
                .unwrap_or_else(|| temp_sqlite("allot-bench-fairness"));
            let store = queue_runs::open(&url, 8).await?;
            let opts = allot_bench::FairnessOptions {
                heavy: a.heavy,
                light_keys: a.light_keys,
                per_key: a.per_key,
                claim_batch: a.claim_batch,
            };
            queue_runs::fairness(store, &opts, a.json.as_deref()).await
        }
        BenchCmd::Feed(a) => feed(a).await,
        BenchCmd::Compare(a) => crate::compare::compare(a).await,
        BenchCmd::Locations(a) => crate::locations::locations(a).await,
        BenchCmd::Batch(a) => {
            on_target(a.target.clone(), |url| async move {
                let reference = (a.target.database_url.as_deref(), a.pgbench_seconds);
                stock_runs::batch(&a.options(url), reference, a.json.as_deref()).await
            })
            .await
        }
        BenchCmd::Auto(a) => {
            on_target(a.target.clone(), |url| async move {
                stock_runs::moving(&a.options(url)).await
            })
            .await
        }
        BenchCmd::Console(a) => crate::console_bench::console(a).await,
        BenchCmd::Cost(a) => crate::cost::cost(a).await,
        BenchCmd::NoopServe(a) => crate::cost::noop_serve(a).await,
    }
}

#[derive(Args)]
pub(crate) struct FlashSaleArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// Stock per SKU (k).
    #[arg(short = 'k', long, default_value_t = 1000)]
    pub(crate) stock: i64,
    /// Requests (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) requests: u64,
    /// Spread the load over M SKUs (each with stock k) instead of one hot SKU.
    #[arg(long, default_value_t = 1)]
    pub(crate) spread: u32,
    /// Buckets of the SKUs of the `segmented` run.
    #[arg(long, default_value_t = 8)]
    pub(crate) buckets: u32,
    /// The API key to send to a `--url` server that requires keys (scopes stock:write and
    /// admin, for the audit).
    #[arg(long, env = "ALLOT_API_KEY")]
    pub(crate) api_key: Option<String>,
}

impl FlashSaleArgs {
    fn options(&self, url: String) -> allot_bench::FlashSaleOptions {
        allot_bench::FlashSaleOptions {
            url,
            strategies: self.load.strategies(),
            clients: self.load.clients,
            stock: self.stock,
            requests: self.requests,
            spread: self.spread,
            segmented_buckets: self.buckets,
            progress: true,
            api_key: self.api_key.clone(),
        }
    }
}

#[derive(Args)]
pub(crate) struct HoldsArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// Stock of the SKU (k).
    #[arg(short = 'k', long, default_value_t = 100_000)]
    pub(crate) stock: i64,
    /// Flows (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) flows: u64,
    /// TTL of every hold, ms (abandoned holds expire after it).
    #[arg(long, default_value_t = 1000)]
    pub(crate) ttl_ms: u64,
    /// Every hold also takes one unit of a unit-tracked SKU with one unit per flow (a mixed
    /// hold; the stock SKU stays the hot row). The rows read `holds_mixed`.
    #[arg(long)]
    pub(crate) unit_line: bool,
    /// Every flow abandons its hold (no confirm or release; the holds expire): measures
    /// making holds alone.
    #[arg(long)]
    pub(crate) hold_only: bool,
}

impl HoldsArgs {
    fn options(&self, url: String) -> allot_bench::HoldsOptions {
        allot_bench::HoldsOptions {
            url,
            strategies: self.load.strategies(),
            clients: self.load.clients,
            stock: self.stock,
            flows: self.flows,
            ttl_ms: self.ttl_ms,
            unit_line: self.unit_line,
            hold_only: self.hold_only,
            progress: true,
        }
    }
}

#[derive(Args)]
pub(crate) struct CheckoutArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// Checkouts per way (N).
    #[arg(short = 'n', long, default_value_t = 2000)]
    pub(crate) checkouts: u64,
    /// Work inside the order's transaction, ms.
    #[arg(long, default_value_t = 2)]
    pub(crate) work_ms: u64,
}

/// `allot bench checkout`: on `--database-url` (PostgreSQL; an in-process server is started
/// on it unless `--url` names one on the same database).
async fn checkout(a: CheckoutArgs) -> anyhow::Result<()> {
    let Some(database_url) = a.load.target.database_url.clone().filter(|u| u.starts_with("postgres")) else {
        anyhow::bail!(
            "allot bench checkout needs --database-url postgres://… (the clients' own transactions run there)"
        );
    };
    on_target(a.load.target.clone(), |url| async move {
        let opts = allot_bench::CheckoutOptions {
            url,
            database_url,
            clients: a.load.clients,
            checkouts: a.checkouts,
            work_ms: a.work_ms,
            progress: true,
        };
        flow_runs::checkout(&opts, a.load.json()).await
    })
    .await
}

#[derive(Args)]
pub(crate) struct UnitsArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// Units in the large pool.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) units: u64,
    /// Claims against the large pool (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) requests: u64,
    /// Smallest quantity of a claim.
    #[arg(long, default_value_t = 1)]
    pub(crate) min_quantity: i64,
    /// Largest quantity of a claim.
    #[arg(long, default_value_t = 5)]
    pub(crate) max_quantity: i64,
    /// Units in the nearly empty pool.
    #[arg(long, default_value_t = 200)]
    pub(crate) scarce_units: u64,
    /// Comma-separated order_by of every claim.
    #[arg(long, default_value = "received_at,location")]
    pub(crate) order_by: String,
    /// Claim the large workload from this existing unit SKU instead of filling a new pool.
    #[arg(long)]
    pub(crate) pool_sku: Option<String>,
}

impl UnitsArgs {
    fn options(&self, url: String) -> allot_bench::UnitsOptions {
        allot_bench::UnitsOptions {
            url,
            strategies: self.load.strategies(),
            clients: self.load.clients,
            pool_units: self.units,
            requests: self.requests,
            min_quantity: self.min_quantity,
            max_quantity: self.max_quantity,
            scarce_units: self.scarce_units,
            order_by: comma_list(&self.order_by)
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect(),
            pool_sku: self.pool_sku.clone(),
            progress: true,
        }
    }
}

#[derive(Args)]
pub(crate) struct BookingsArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
    /// Booking requests (N).
    #[arg(short = 'n', long, default_value_t = 10_000)]
    pub(crate) requests: u64,
    /// Resources (R); few resources means high contention.
    #[arg(long, default_value_t = 100)]
    pub(crate) resources: u32,
    /// Length of every range, days.
    #[arg(long, default_value_t = 3)]
    pub(crate) days: u32,
    /// Ranges start on a random day in 0..horizon from 2030-01-01.
    #[arg(long, default_value_t = 3650)]
    pub(crate) horizon_days: u32,
    /// Put every resource with this capacity per night first (`slot_ms` a day): the
    /// capacity path (a sold-out session's storm with `--resources 1 --days 1
    /// --horizon-days 1`). Without it, resources are never put (capacity 1, exclusion path).
    #[arg(long)]
    pub(crate) capacity: Option<u32>,
}

impl BookingsArgs {
    fn options(&self, url: String) -> allot_bench::BookingsOptions {
        allot_bench::BookingsOptions {
            url,
            strategies: self.load.strategies(),
            clients: self.load.clients,
            requests: self.requests,
            resources: self.resources,
            days: self.days,
            horizon_days: self.horizon_days,
            capacity: self.capacity,
            progress: true,
        }
    }
}

#[derive(Args)]
pub(crate) struct AutoArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategies, comma-separated.
    #[arg(long, default_value = "auto,atomic,batched")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 128)]
    pub(crate) clients: usize,
    /// Requests (N).
    #[arg(short = 'n', long, default_value_t = 40_000)]
    pub(crate) requests: u64,
    /// SKUs (M).
    #[arg(long, default_value_t = 100)]
    pub(crate) skus: u32,
    /// Phases (P).
    #[arg(long, default_value_t = 4)]
    pub(crate) phases: u32,
    /// Share of a phase's requests on its hot SKU.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) hot_share: f64,
    /// Stock per SKU (k).
    #[arg(short = 'k', long, default_value_t = 1_000_000)]
    pub(crate) stock: i64,
}

impl AutoArgs {
    fn options(&self, url: String) -> allot_bench::MovingOptions {
        allot_bench::MovingOptions {
            url,
            strategies: comma_list(&self.strategy),
            clients: self.clients,
            requests: self.requests,
            skus: self.skus,
            phases: self.phases,
            hot_share: self.hot_share.clamp(0.0, 1.0),
            stock: self.stock,
        }
    }
}

#[derive(Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategy, a comma-separated list, `all`, or `default` (the operations name none: the
    /// server's default, `batched` on PostgreSQL and `serialized` on SQLite).
    #[arg(long, default_value = "default")]
    pub(crate) strategy: String,
    /// Connections (C).
    #[arg(short = 'c', long, default_value_t = 1)]
    pub(crate) connections: usize,
    /// Batches in flight on each connection (S): 1 sends one at a time over HTTP/1.1; more
    /// sends that many at once as HTTP/2 streams over the one connection.
    #[arg(short = 's', long, default_value_t = 1)]
    pub(crate) streams: usize,
    /// Operations per batch (B).
    #[arg(short = 'b', long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Allocations (N), rounded up to whole batches.
    #[arg(short = 'n', long, default_value_t = 200_000)]
    pub(crate) requests: u64,
    /// Stock of the hot SKU (k); N by default, so every allocation can succeed.
    #[arg(short = 'k', long)]
    pub(crate) stock: Option<i64>,
    /// Seconds of the reference on PostgreSQL (the batch's write statement alone through
    /// pgbench, on `--database-url`, from C x S clients); 0 runs none.
    #[arg(long, default_value_t = 5)]
    pub(crate) pgbench_seconds: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

impl BatchArgs {
    fn options(&self, url: String) -> allot_bench::BatchOptions {
        allot_bench::BatchOptions {
            url,
            strategies: comma_list(&self.strategy),
            connections: self.connections,
            streams: self.streams,
            batch: self.batch,
            requests: self.requests,
            stock: self.stock.unwrap_or(self.requests as i64),
        }
    }
}

#[derive(Args)]
pub(crate) struct QueueArgs {
    /// Database (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    pub(crate) database_url: Option<String>,
    /// skip_locked, advisory (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Producers (P).
    #[arg(short = 'p', long, default_value_t = 4)]
    pub(crate) producers: usize,
    /// Jobs (J).
    #[arg(short = 'j', long, default_value_t = 100_000)]
    pub(crate) jobs: u64,
    /// Jobs per enqueue batch.
    #[arg(long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Share of jobs enqueued one by one.
    #[arg(long, default_value_t = 0.01)]
    pub(crate) single_fraction: f64,
    /// Worker pools (W).
    #[arg(short = 'w', long, default_value_t = 4)]
    pub(crate) workers: usize,
    /// Slots per pool.
    #[arg(long, default_value_t = 200)]
    pub(crate) concurrency: usize,
    /// Jobs per claim, at most.
    #[arg(long, default_value_t = 100)]
    pub(crate) claim_batch: i64,
    /// Share of jobs whose first attempt fails.
    #[arg(long, default_value_t = 0.05)]
    pub(crate) fail_fraction: f64,
    /// Pools killed mid-run.
    #[arg(long, default_value_t = 1)]
    pub(crate) kill_workers: usize,
    /// Lease, ms.
    #[arg(long, default_value_t = 2000)]
    pub(crate) lease_ms: i64,
    /// PostgreSQL pool size.
    #[arg(long, default_value_t = 32)]
    pub(crate) pool_size: usize,
    /// Partition keys the jobs spread over (0: none; 1000 when --limit or --fifo asks for
    /// keys and this is not given).
    #[arg(long)]
    pub(crate) keys: Option<u64>,
    /// Also run each strategy with `max_running_per_key` N on the same jobs, and report its
    /// throughput against the plain run's.
    #[arg(long)]
    pub(crate) limit: Option<i64>,
    /// Also run each strategy with `fifo_per_key` (with --limit: both in one run).
    #[arg(long)]
    pub(crate) fifo: bool,
    /// Run on queues with `keep_completed: false` (a completion deletes its job, as
    /// graphile-worker does); the check then counts the completions the pools had
    /// acknowledged, so use it with `--kill-workers 0`.
    #[arg(long)]
    pub(crate) drop_completed: bool,
    /// Enqueue every job before the worker pools start, instead of while they run; the
    /// completed rate still counts from the first enqueue.
    #[arg(long)]
    pub(crate) enqueue_first: bool,
    /// Also run each strategy with `fair_by: partition_key` (keys: 1000 unless --keys says),
    /// and report its throughput against the plain run's.
    #[arg(long)]
    pub(crate) fair: bool,
    /// Also run each strategy with `events: true` (the jobs' lifecycle on the feed), and
    /// report its throughput against the plain run's: what job events cost.
    #[arg(long)]
    pub(crate) events: bool,
    /// Also run each strategy with the jobs enqueued as chains of N (each job `depends_on`
    /// the one before it), and report its throughput against the plain run's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=100))]
    pub(crate) chains: Option<u64>,
    /// Instead of the workload: single-job claims only, from this many clients, for at most
    /// `--seconds` (the figure to compare with bench/pgbench/jobs_claim.sql).
    #[arg(long)]
    pub(crate) claims_only: Option<usize>,
    /// Time limit of `--claims-only`, s.
    #[arg(long, default_value_t = 15)]
    pub(crate) seconds: u64,
    /// With `--claims-only`: also claim through HTTP (`POST /v1/queues/{queue}/claims`) on a
    /// server started in-process on the same database, and give its claims/s over the
    /// store's.
    #[arg(long, requires = "claims_only")]
    pub(crate) http: bool,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

impl QueueArgs {
    /// The options of the workload, or an error naming the flag that cannot be.
    fn options(&self) -> anyhow::Result<allot_bench::QueueOptions> {
        let strategies = if self.strategy == "all" {
            allot_core::ClaimStrategy::ALL.to_vec()
        } else {
            comma_list(&self.strategy)
                .iter()
                .map(|s| allot_core::ClaimStrategy::parse(s).ok_or_else(|| anyhow::anyhow!("unknown strategy {s}")))
                .collect::<anyhow::Result<Vec<_>>>()?
        };
        if self.drop_completed && self.kill_workers > 0 {
            // A killed pool's last flush may delete its jobs without counting them, and without
            // kept rows the check has only the pools' counts: it would report jobs lost.
            anyhow::bail!("--drop-completed needs --kill-workers 0");
        }
        Ok(allot_bench::QueueOptions {
            strategies,
            producers: self.producers,
            jobs: self.jobs,
            batch: self.batch,
            single_fraction: self.single_fraction,
            workers: self.workers,
            concurrency: self.concurrency,
            claim_batch: self.claim_batch,
            fail_fraction: self.fail_fraction,
            kill_workers: self.kill_workers,
            lease_ms: self.lease_ms,
            drain_timeout_s: 300,
            keys: self.keys.unwrap_or(if self.limit.is_some() || self.fifo || self.fair {
                1000
            } else {
                0
            }),
            limit_per_key: self.limit,
            fifo: self.fifo,
            keep_completed: !self.drop_completed,
            enqueue_first: self.enqueue_first,
            fair: self.fair,
            events: self.events,
            chain: self.chains.unwrap_or(0),
        })
    }
}

/// `bench queue`: the workload straight on the store at `--database-url` (a fresh SQLite
/// file by default), or `--claims-only` on the store and (`--http`) through a server started
/// in-process on the same database once the store's pool is closed (the two at
/// `--pool-size` would pass a default `max_connections`).
async fn queue(a: QueueArgs) -> anyhow::Result<()> {
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| temp_sqlite("allot-bench-queue"));
    let opts = a.options()?;
    let store = queue_runs::open(&database_url, a.pool_size).await?;
    let Some(clients) = a.claims_only else {
        return queue_runs::queue(store, &opts, a.json.as_deref()).await;
    };
    let load = queue_runs::ClaimLoad {
        jobs: a.jobs,
        clients,
        seconds: a.seconds,
    };
    let on_store = queue_runs::claims_on_store(store, &opts.strategies, load).await?;
    if !a.http {
        return Ok(());
    }
    let target = TargetArgs {
        url: None,
        database_url: Some(database_url.clone()),
        pool_size: a.pool_size,
        redis_url: None,
    };
    on_target(target, |url| async move {
        queue_runs::claims_over_http((&database_url, &url), &on_store, load).await
    })
    .await
}

#[derive(Args)]
pub(crate) struct FairnessArgs {
    /// Database (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    pub(crate) database_url: Option<String>,
    /// Jobs of the heavy key, enqueued first.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) heavy: u64,
    /// Light keys.
    #[arg(long, default_value_t = 90)]
    pub(crate) light_keys: u64,
    /// Jobs per light key.
    #[arg(long, default_value_t = 10)]
    pub(crate) per_key: u64,
    /// Jobs per claim, at most.
    #[arg(long, default_value_t = 10)]
    pub(crate) claim_batch: i64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct FeedArgs {
    /// A fresh PostgreSQL database to run on (its in-process server is started here).
    #[arg(long)]
    pub(crate) database_url: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 256)]
    pub(crate) clients: usize,
    /// Allocations per flash sale (N); the SKU has as many units.
    #[arg(short = 'n', long, default_value_t = 20_000)]
    pub(crate) requests: u64,
    /// Flash sales with the feed, and as many without.
    #[arg(long, default_value_t = 2)]
    pub(crate) rounds: u32,
    /// The in-process server's sequencer interval (`allot serve --event-sequence-interval-ms`).
    #[arg(long, default_value_t = 50)]
    pub(crate) event_sequence_interval_ms: u64,
    /// The stock strategy of the sale (`batched`, the hot path the feed must not slow down,
    /// or a per-request one such as `atomic`).
    #[arg(long, default_value = "batched")]
    pub(crate) strategy: String,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

/// `bench feed`: on an in-process server on `--database-url` whose sequencer runs every
/// `--event-sequence-interval-ms`.
async fn feed(a: FeedArgs) -> anyhow::Result<()> {
    let target = TargetArgs {
        url: None,
        database_url: Some(a.database_url.clone()),
        pool_size: 32,
        redis_url: None,
    };
    let interval_ms = a.event_sequence_interval_ms;
    let tweak = move |cfg: &mut ServerConfig| cfg.limits.event_sequence_interval_ms = interval_ms;
    on_target_with(target, tweak, |url| async move {
        let opts = allot_bench::FlashSaleOptions {
            url,
            strategies: vec![a.strategy.clone()],
            clients: a.clients,
            stock: a.requests as i64,
            requests: a.requests,
            spread: 1,
            segmented_buckets: 1,
            progress: true,
            api_key: None,
        };
        let run = (a.database_url.as_str(), a.rounds, interval_ms);
        stock_runs::feed(&opts, run, a.json.as_deref()).await
    })
    .await
}
