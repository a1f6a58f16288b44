//! `allot bench cost`: measure one build (this one) or two (`--rev`: a revision and the
//! working tree, both built in release as `bench compare --rev` builds them), print and write
//! the tables, write or check the baseline.

use super::rev::{build_rev, build_working_tree, resolve};
use crate::cost::{self, Baseline, CostOptions, CostRow};
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

/// What the command was asked beyond the measurement itself.
#[derive(Debug, Clone)]
pub struct CostRun {
    /// The measurement (its `binary` is replaced by the builds under `--rev`).
    pub options: CostOptions,
    /// Where `cost.md` and `cost.json` go.
    pub out: PathBuf,
    /// `--rev`: a revision to count beside the working tree.
    pub rev: Option<String>,
    /// `--check`: the baseline to hold this build to.
    pub check: Option<PathBuf>,
    /// `--write-baseline`: where to write this build's rows as the new baseline.
    pub write_baseline: Option<PathBuf>,
    /// `debug` or `release`: the profile of this build (the baseline's).
    pub profile: &'static str,
}

/// Run it; an error when the gate fails.
pub async fn cost(run: &CostRun) -> anyhow::Result<()> {
    std::fs::create_dir_all(&run.out)?;
    if let Some(rev) = &run.rev {
        return versus(run, rev).await;
    }
    let rows = cost::measure_build(&run.options).await?;
    let table = cost::render_table(&rows);
    println!("{table}");
    std::fs::write(run.out.join("cost.md"), &table)?;
    std::fs::write(run.out.join("cost.json"), serde_json::to_vec_pretty(&rows)?)?;
    eprintln!("wrote {}/cost.md and cost.json", run.out.display());
    let baseline = Baseline {
        profile: run.profile.to_string(),
        ops: run.options.ops,
        rows,
    };
    if let Some(path) = &run.write_baseline {
        let mut text = serde_json::to_vec_pretty(&baseline)?;
        text.push(b'\n');
        std::fs::write(path, text)?;
        eprintln!("wrote the baseline {}", path.display());
    }
    if let Some(path) = &run.check {
        gate(path, &baseline)?;
    }
    Ok(())
}

/// Hold `now` to the baseline at `path`.
fn gate(path: &Path, now: &Baseline) -> anyhow::Result<()> {
    let text = std::fs::read(path).with_context(|| format!("read the baseline {}", path.display()))?;
    let base: Baseline =
        serde_json::from_slice(&text).with_context(|| format!("{} is not a cost baseline", path.display()))?;
    if base.ops != now.ops {
        bail!(
            "the baseline {} was counted with --ops {}, this run with --ops {}: per operation they differ (a window's fixed costs spread over fewer or more)",
            path.display(),
            base.ops,
            now.ops
        );
    }
    if base.profile != now.profile {
        bail!(
            "the baseline {} was counted on a {} build, this is a {} build: they never compare",
            path.display(),
            base.profile,
            now.profile
        );
    }
    let verdict = cost::check(&base, &now.rows);
    for line in &verdict.improvements {
        eprintln!("lower than the baseline (update it with --write-baseline): {line}");
    }
    if verdict.failures.is_empty() {
        eprintln!("cost gate: every path within the baseline {}", path.display());
        return Ok(());
    }
    for line in &verdict.failures {
        eprintln!("above the baseline: {line}");
    }
    bail!(
        "the cost gate failed on {} count(s); if the rise is meant, run `allot bench cost --write-baseline {}` and say why in the commit",
        verdict.failures.len(),
        path.display()
    )
}

/// `--rev`: the revision's build and the working tree's, each measured on its own cluster.
async fn versus(run: &CostRun, rev: &str) -> anyhow::Result<()> {
    let (root, sha) = resolve(rev)?;
    let short = sha[..12.min(sha.len())].to_string();
    let base_bin = build_rev(&root, &sha)?;
    let head_bin = build_working_tree(&root)?;
    let measure = |bin: PathBuf, dir: &str| {
        let mut o = run.options.clone();
        o.binary = bin;
        o.noop_binary = None;
        o.work_dir = run.options.work_dir.join(dir);
        o
    };
    eprintln!("== cost of {short}");
    let mut base_options = measure(base_bin, &short);
    base_options.tolerate_failures = true;
    let base = cost::measure_build(&base_options).await?;
    eprintln!("== cost of the working tree");
    let mut head_options = measure(head_bin.clone(), "head");
    head_options.noop_binary = Some(head_bin);
    let head = cost::measure_build(&head_options).await?;
    let text = format!(
        "{short}:\n\n{}\nthis build:\n\n{}\n{}",
        cost::render_table(&base),
        cost::render_table(&head),
        crate::cost::render_versus(&base, &head, &short)
    );
    println!("{text}");
    std::fs::write(run.out.join("cost-rev.md"), &text)?;
    let both: [(&str, &Vec<CostRow>); 2] = [(short.as_str(), &base), ("head", &head)];
    std::fs::write(run.out.join("cost-rev.json"), serde_json::to_vec_pretty(&both)?)?;
    eprintln!("wrote {}/cost-rev.md", run.out.display());
    Ok(())
}
