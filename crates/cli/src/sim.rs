//! `allot sim`: one seeded sequence against the reference model and every backend and
//! strategy named (allot-sim's runner); exit 1 on a divergence, with the shrunk steps.

use clap::Args;

/// Every target `allot sim` runs by default.
pub const ALL_TARGETS: &str =
    "model,sqlite,postgres:atomic,postgres:pessimistic,postgres:optimistic,postgres:segmented,postgres:batched,postgres:auto";

/// `allot sim`'s flags.
#[derive(Args)]
pub struct SimArgs {
    /// The generator's seed: the same seed gives the same sequence and the same digest.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seeds to run, from `--seed` on (each its own sequence, each printed with its digest).
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Steps per sequence.
    #[arg(long, default_value_t = 1000)]
    steps: usize,
    /// Comma-separated: `model` (always run: the others are compared with it), `sqlite`,
    /// `postgres[:strategy]`; `postgres:redis_counter` and `postgres:redis_lock` (not in the
    /// default list) need the Redis of `ALLOT_SIM_REDIS_URL` (default `redis://127.0.0.1:6379`);
    /// with `@cluster` (`postgres:redis_lock@cluster`) each starts a 3-master Redis Cluster of
    /// its own (Debian's `redis-server` and `redis-cli`).
    #[arg(long, default_value = ALL_TARGETS)]
    backends: String,
    /// PostgreSQL for the `postgres` targets (each makes a database of its own there and drops it).
    #[arg(
        long,
        env = "ALLOT_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/postgres"
    )]
    database_url: String,
    /// Plant a fault in the model, to see the runner find and shrink it (the comparison is
    /// the same whichever side is wrong): `cancel-gives-one-more`, `lease-check-removed`,
    /// `mixed-hold-skips-units`, `hold-skips-bookings`, `hold-bookings-unguarded`,
    /// `release-event-missing` or `schedule-ignores-tick`.
    #[arg(long)]
    plant: Option<String>,
    /// Run the concurrent phase with faults instead: clients on two `allot serve` instances
    /// over a PostgreSQL cluster of the run's own, faults injected, a heal phase, the
    /// histories checked (`--seed`/`--seeds` as above; `--backends`, `--steps` unused).
    #[arg(long)]
    faults: bool,
    /// `--faults`: concurrent clients.
    #[arg(long, default_value_t = 6)]
    clients: usize,
    /// `--faults`: most operations per client.
    #[arg(long, default_value_t = 400)]
    ops: usize,
    /// `--faults`: jobs enqueued before the clients start.
    #[arg(long, default_value_t = 40)]
    jobs: usize,
}

/// `allot sim --faults`: each seed's faults run; `false` when one found a violation.
async fn faults(a: &SimArgs) -> anyhow::Result<bool> {
    let mut failed = 0u64;
    for seed in a.seed..a.seed.saturating_add(a.seeds.max(1)) {
        let cfg = allot_sim::faults::FaultsConfig {
            seed,
            clients: a.clients,
            max_ops: a.ops,
            jobs: a.jobs,
            allot_bin: std::env::current_exe()?,
        };
        let r = allot_sim::faults::run_faults(&cfg).await?;
        println!(
            "faults seed {seed}: {} operations ({} sends, {} answers dropped, {} unavailable), {} histories linearizable",
            r.operations, r.sends, r.answers_dropped, r.unavailable, r.linearizable
        );
        for f in &r.faults {
            println!("  fault: {f}");
        }
        for v in &r.violations {
            println!("  VIOLATION: {v}");
        }
        if !r.violations.is_empty() {
            failed += 1;
        }
    }
    Ok(failed == 0)
}

/// Run the seeds (each to its end or its first divergence, shrunk); `false` when one
/// diverged.
pub async fn sim(a: SimArgs) -> anyhow::Result<bool> {
    if a.faults {
        return faults(&a).await;
    }
    let specs = a
        .backends
        .split(',')
        .map(str::trim)
        .filter(|b| !b.is_empty() && *b != "model")
        .map(allot_sim::target::Spec::parse)
        .collect::<Result<Vec<_>, _>>()?;
    let mutation = match a.plant.as_deref() {
        None => None,
        Some(name) => Some(allot_sim::model::Mutation::parse(name).ok_or_else(|| {
            let names: Vec<&str> = allot_sim::model::Mutation::ALL.iter().map(|m| m.name()).collect();
            anyhow::anyhow!("--plant: unknown fault `{name}` (one of {})", names.join(", "))
        })?),
    };
    let mut diverged = 0u64;
    for seed in a.seed..a.seed.saturating_add(a.seeds.max(1)) {
        let cfg = allot_sim::Config {
            seed,
            steps: a.steps,
            specs: specs.clone(),
            database_url: a.database_url.clone(),
            mutation,
        };
        // A seed that could not run (a target did not start: PostgreSQL out of connection
        // slots, say) is said and counted, and the next seed runs.
        let report = match allot_sim::run(&cfg).await {
            Ok(r) => r,
            Err(e) => {
                println!("seed {seed}: could not run: {e}");
                diverged += 1;
                continue;
            }
        };
        println!(
            "seed {seed}: {} steps, {} requests to {} targets, digest {}",
            report.steps,
            report.requests,
            specs.len(),
            report.digest
        );
        if let Some(mut d) = report.divergence {
            println!("DIVERGED at step {} on {}: {:?}", d.step, d.target, d.op);
            println!(
                "  model:  {} {}{}",
                d.expected.status,
                d.expected.view,
                replayed(d.expected.replayed)
            );
            println!("  target: {} {}{}", d.got.status, d.got.view, replayed(d.got.replayed));
            println!("  shrinking (at most {} replays)…", allot_sim::run::MAX_SHRINK_RUNS);
            allot_sim::shrink_divergence(&cfg, &mut d).await?;
            println!(
                "  shrunk to {} steps (replay them with `allot sim --seed {seed}`):",
                d.shrunk.len()
            );
            for (i, op) in d.shrunk.iter().enumerate() {
                println!("    {i}: {op:?}");
            }
            diverged += 1;
        }
    }
    if diverged > 0 {
        println!("{diverged} of {} seeds diverged or could not run", a.seeds.max(1));
    }
    Ok(diverged == 0)
}

fn replayed(r: bool) -> &'static str {
    if r {
        " (replayed)"
    } else {
        ""
    }
}
