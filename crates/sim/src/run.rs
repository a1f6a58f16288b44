//! The differential runner: one sequence against the model and every target, step by step;
//! the trace's digest; and the shrinking of a sequence that diverges.

use crate::made::{Made, Noted};
use crate::model::{Model, Mutation};
use crate::ops::{Generator, Op, QUEUES, RESOURCES, SKUS, UNIT_SKU};
use crate::target::{Spec, Target};
use crate::{Answer, SimError};
use allot_core::ManualClock;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::Arc;

pub use crate::ops::start;

/// Most replays one shrinking may run (each starts a fresh server).
pub const MAX_SHRINK_RUNS: usize = 150;

/// A run: the seed, the number of steps, the targets and the PostgreSQL database the
/// `postgres` targets make their schemas in.
#[derive(Debug, Clone)]
pub struct Config {
    /// The generator's seed.
    pub seed: u64,
    /// Steps generated.
    pub steps: usize,
    /// The targets compared with the model.
    pub specs: Vec<Spec>,
    /// PostgreSQL's URL (`postgres` targets only).
    pub database_url: String,
    /// A fault planted in the model (tests of the runner itself).
    pub mutation: Option<Mutation>,
}

/// The first step where a target and the model disagreed.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// The step's place in the sequence (0-based).
    pub step: usize,
    /// The target that disagreed.
    pub target: String,
    /// The step (a state check after it reads `GetSku`).
    pub op: Op,
    /// What the model answered.
    pub expected: Answer,
    /// What the target answered.
    pub got: Answer,
    /// A shorter sequence that still diverges on that target (empty before shrinking).
    pub shrunk: Vec<Op>,
}

/// What a run found.
#[derive(Debug, Clone)]
pub struct Report {
    /// SHA-256 of the model's trace (every step and its answer), hex.
    pub digest: String,
    /// Steps run (up to the divergence, if any).
    pub steps: usize,
    /// Requests sent to the targets, state checks included.
    pub requests: u64,
    /// The first divergence, shrunk.
    pub divergence: Option<Divergence>,
}

/// Generate the seed's sequence and run it against the model and every target (shrink a
/// divergence with [`shrink_divergence`]).
pub async fn run(cfg: &Config) -> Result<Report, SimError> {
    let ops = Generator::new(cfg.seed).sequence(cfg.steps);
    replay(&ops, &cfg.specs, (&cfg.database_url, cfg.mutation)).await
}

/// Shrink `d`, found by a run of `cfg`, on its target: its `shrunk` steps.
pub async fn shrink_divergence(cfg: &Config, d: &mut Divergence) -> Result<(), SimError> {
    let ops = Generator::new(cfg.seed).sequence(cfg.steps);
    let spec = Spec::parse(&d.target)?;
    // A divergence found after the last step (the audit, the feed) shrinks every step.
    let upto = (d.step + 1).min(ops.len());
    d.shrunk = shrink(ops[..upto].to_vec(), &spec, (&cfg.database_url, cfg.mutation)).await?;
    Ok(())
}

/// Run `ops` against the model (with `mutation` planted, if any) and `specs` (each on a
/// fresh database in `database_url`'s, for PostgreSQL) until the first divergence.
pub async fn replay(
    ops: &[Op],
    specs: &[Spec],
    (database_url, mutation): (&str, Option<Mutation>),
) -> Result<Report, SimError> {
    let clock = Arc::new(ManualClock::new(start()));
    let mut targets = Vec::new();
    for spec in specs {
        match Target::start(spec, clock.clone(), database_url).await {
            Ok(t) => targets.push(t),
            Err(e) => {
                stop_all(targets).await;
                return Err(e);
            }
        }
    }
    let mut run = Run {
        model: Model::new(clock.clone()).mutated(mutation),
        made: Made::default(),
        hasher: Sha256::new(),
        requests: 0,
    };
    // The targets stop (and their databases go) whatever the steps end with.
    let ran = run.steps(ops, &clock, &mut targets).await;
    stop_all(targets).await;
    let (steps, divergence) = ran?;
    Ok(Report {
        digest: hex(&run.hasher.finalize()),
        steps,
        requests: run.requests,
        divergence,
    })
}

/// The model's side of a replay.
struct Run {
    model: Model,
    made: Made,
    hasher: Sha256,
    requests: u64,
}

impl Run {
    /// Every step of `ops` until the first divergence: the steps run, and the divergence.
    async fn steps(
        &mut self,
        ops: &[Op],
        clock: &ManualClock,
        targets: &mut [Target],
    ) -> Result<(usize, Option<Divergence>), SimError> {
        for (i, op) in ops.iter().enumerate() {
            if let Op::Advance { ms } = op {
                clock.advance_ms(*ms);
                self.hasher.update(format!("{i} {op:?}\n"));
                continue;
            }
            let found = match op {
                Op::Sweep => self.sweep(i, targets).await?,
                Op::RunSchedules => self.run_schedules(i, targets).await?,
                _ => self.step(i, op, targets).await?,
            };
            if let Some(d) = found {
                return Ok((i + 1, Some(d)));
            }
        }
        // Last, the books of every target: `GET /v1/audit` finds nothing (held against the
        // live holds, on hand against the ledger).
        let clean = self.expect(&Op::Audit, false);
        if let Some(d) = self.compare(ops.len(), &Op::Audit, &clean, targets).await? {
            return Ok((ops.len(), Some(d)));
        }
        // And the feed: every hold's own events, and the stock writes' with their reasons and
        // references, as the model wrote them.
        for feed in [Op::HoldEvents, Op::StockEvents] {
            let events = self.expect(&feed, false);
            if let Some(d) = self.compare(ops.len(), &feed, &events, targets).await? {
                return Ok((ops.len(), Some(d)));
            }
        }
        Ok((ops.len(), None))
    }

    /// Step `i`: `op` on the model and every target, then every SKU read on each.
    async fn step(&mut self, i: usize, op: &Op, targets: &mut [Target]) -> Result<Option<Divergence>, SimError> {
        let expected = self.expect(op, true);
        self.hasher.update(format!("{i} {op:?} {expected:?}\n"));
        if std::env::var_os("ALLOT_SIM_TRACE").is_some() {
            eprintln!("{i} {op:?} -> {} {}", expected.status, expected.view);
        }
        if let Some(d) = self.compare(i, op, &expected, targets).await? {
            return Ok(Some(d));
        }
        self.check_state(i, targets).await
    }

    /// Step `i`, a pass of the lease sweeper on the model and every target, then the state.
    async fn sweep(&mut self, i: usize, targets: &mut [Target]) -> Result<Option<Divergence>, SimError> {
        self.hasher.update(format!("{i} {:?}\n", Op::Sweep));
        self.model.sweep();
        for t in targets.iter() {
            t.sweep().await?;
        }
        self.check_state(i, targets).await
    }

    /// Step `i`, a pass of the scheduler on the model and every target (each noting the jobs
    /// it made), then the schedules and the state.
    async fn run_schedules(&mut self, i: usize, targets: &mut [Target]) -> Result<Option<Divergence>, SimError> {
        let made = self.model.run_schedules();
        self.hasher.update(format!("{i} {:?} {made:?}\n", Op::RunSchedules));
        if std::env::var_os("ALLOT_SIM_TRACE").is_some() {
            eprintln!("{i} RunSchedules -> jobs {made:?}");
        }
        let expected = Answer {
            status: 200,
            replayed: false,
            view: json!({ "made": self.model.made_jobs_view(&made) }),
        };
        self.made.note(&Op::RunSchedules, (200, false), Some(Noted::Jobs(made)));
        for t in targets.iter_mut() {
            let got = Answer {
                status: 200,
                replayed: false,
                view: json!({ "made": t.run_schedules().await? }),
            };
            if got != expected {
                let (target, op, shrunk) = (t.spec.name(), Op::RunSchedules, Vec::new());
                return Ok(Some(Divergence {
                    step: i,
                    target,
                    op,
                    expected,
                    got,
                    shrunk,
                }));
            }
        }
        let expected = self.expect(&Op::ListSchedules, false);
        if let Some(d) = self.compare(i, &Op::ListSchedules, &expected, targets).await? {
            return Ok(Some(d));
        }
        self.check_state(i, targets).await
    }

    /// The state after step `i`: every SKU (the unit-tracked one's units too), queue and
    /// resource read on each target.
    async fn check_state(&mut self, i: usize, targets: &mut [Target]) -> Result<Option<Divergence>, SimError> {
        let reads = SKUS
            .iter()
            .chain([&UNIT_SKU])
            .map(|&sku| Op::GetSku { sku })
            .chain([Op::GetUnits { sku: UNIT_SKU }])
            .chain([Op::OtherTenant {
                op: Box::new(Op::GetSku {
                    sku: crate::ops::SKUS[0],
                }),
            }])
            .chain(QUEUES.iter().map(|&queue| Op::GetQueue { queue }))
            .chain(RESOURCES.iter().map(|&resource| Op::Availability { resource }));
        for read in reads {
            let expected = self.expect(&read, false);
            if let Some(d) = self.compare(i, &read, &expected, targets).await? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    /// The model's answer to `op` (noting what it made when `note`).
    fn expect(&mut self, op: &Op, note: bool) -> Answer {
        if let Op::Batch { ops } = op {
            return self.expect_batch(ops, note);
        }
        let resolved = self.made.resolve(op);
        let (answer, noted) = self.model.apply(op, &resolved).unwrap_or((Answer::none(), None));
        if note {
            self.made.note(op, (answer.status, answer.replayed), noted);
        }
        answer
    }

    /// The model's answer to a batch: its refusal, or each operation's answer in order.
    fn expect_batch(&mut self, ops: &[Op], note: bool) -> Answer {
        if let Some(refused) = self.model.batch_refusal(ops) {
            return refused;
        }
        // Every operation names what was made before the batch, as a client sending it does.
        let resolved: Vec<_> = ops.iter().map(|op| self.made.resolve(op)).collect();
        let mut results = Vec::with_capacity(ops.len());
        for (op, r) in ops.iter().zip(&resolved) {
            let (answer, noted) = self.model.apply(op, r).unwrap_or((Answer::none(), None));
            if note {
                self.made.note(op, (answer.status, answer.replayed), noted);
            }
            results.push(answer.as_result());
        }
        Answer {
            status: 200,
            replayed: false,
            view: serde_json::json!({ "results": results }),
        }
    }

    async fn compare(
        &mut self,
        i: usize,
        op: &Op,
        expected: &Answer,
        targets: &mut [Target],
    ) -> Result<Option<Divergence>, SimError> {
        for t in targets.iter_mut() {
            self.requests += 1;
            let got = t.step(op).await?;
            if got.as_ref() != Some(expected) {
                return Ok(Some(Divergence {
                    step: i,
                    target: t.spec.name(),
                    op: op.clone(),
                    expected: expected.clone(),
                    got: got.unwrap_or_else(Answer::none),
                    shrunk: Vec::new(),
                }));
            }
        }
        Ok(None)
    }
}

async fn stop_all(targets: Vec<Target>) {
    for t in targets {
        t.stop().await;
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The shortest sequence found (by removing ever smaller runs of steps, as delta debugging
/// does) that still diverges on `spec`, within [`MAX_SHRINK_RUNS`] replays.
pub async fn shrink(mut ops: Vec<Op>, spec: &Spec, at: (&str, Option<Mutation>)) -> Result<Vec<Op>, SimError> {
    let specs = std::slice::from_ref(spec);
    let mut runs = 0;
    let mut chunk = (ops.len() / 2).max(1);
    loop {
        let mut i = 0;
        let mut removed = false;
        while i < ops.len() && runs < MAX_SHRINK_RUNS {
            let mut candidate = ops.clone();
            candidate.drain(i..(i + chunk).min(ops.len()));
            runs += 1;
            match replay(&candidate, specs, at).await?.divergence {
                Some(d) => {
                    candidate.truncate(d.step + 1);
                    ops = candidate;
                    removed = true;
                }
                None => i += chunk,
            }
        }
        if runs >= MAX_SHRINK_RUNS || (chunk == 1 && !removed) {
            return Ok(ops);
        }
        if !removed {
            chunk = (chunk / 2).max(1);
        }
    }
}
