//! `allot chaos` run and reported: the scenarios by name (`all`: every one but the soak) or
//! the soak, each against `allot serve` processes of `allot_bin`, with the report's table.

use std::path::PathBuf;

use anyhow::Context;

use crate::chaos::{chaos, render_chaos, ChaosOptions, Scenario};
use crate::soak::{render_soak, soak, SoakOptions};

/// One `allot chaos` run.
#[derive(Debug, Clone)]
pub struct ChaosRun {
    /// The `allot` binary the scenarios start (`allot serve`).
    pub allot_bin: PathBuf,
    /// Concurrent clients.
    pub clients: usize,
    /// Requests per scenario.
    pub requests: u64,
    /// The soak's length, s.
    pub duration_s: u64,
    /// The soak's sampling interval, s.
    pub sample_s: u64,
}

/// Run `scenario` (a name of [`Scenario::ALL`], `all`, or `soak`) and print its report;
/// `Ok(false)` when an invariant broke (the caller exits 1), an error when the name is
/// unknown or a scenario could not run.
pub async fn run(scenario: &str, run: &ChaosRun) -> anyhow::Result<bool> {
    if scenario == "soak" {
        let opts = SoakOptions {
            allot_bin: run.allot_bin.clone(),
            clients: run.clients,
            duration_s: run.duration_s,
            sample_s: run.sample_s,
        };
        let report = soak(&opts).await?;
        print!("{}", render_soak(&report));
        return Ok(report.violations.is_empty());
    }
    let scenarios: Vec<Scenario> = if scenario == "all" {
        Scenario::ALL.to_vec()
    } else {
        let s = Scenario::ALL.into_iter().find(|s| s.name() == scenario);
        vec![s.with_context(|| format!("no scenario `{scenario}`"))?]
    };
    let mut reports = Vec::new();
    for scenario in scenarios {
        eprintln!("== {}", scenario.name());
        let opts = ChaosOptions {
            scenario,
            allot_bin: run.allot_bin.clone(),
            clients: run.clients,
            requests: run.requests,
        };
        reports.push(chaos(&opts).await?);
    }
    print!("{}", render_chaos(&reports));
    Ok(reports.iter().all(|r| r.violations.is_empty()))
}
