//! A server process run under Valgrind's callgrind (Valgrind manual, "Callgrind: a call-graph
//! generating cache and branch prediction profiler"), whose counters are zeroed before a
//! window and dumped after it with `callgrind_control -z` / `-d`: the instructions the
//! process executed in the window, counted the same way whatever else the machine does, and
//! the calls it made into the allocator. The load generator and PostgreSQL run outside it.

use crate::error::BenchError;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// What one window cost the process.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CpuCounts {
    /// Instructions executed (callgrind's `Ir`), every thread.
    pub instructions: u64,
    /// Calls into the heap allocator from outside it (`malloc`, `calloc` and mimalloc's
    /// `mi_*alloc*` entry points; reallocations are not counted).
    pub allocations: u64,
}

/// The allocator's entry points: a call into one of these from elsewhere is an allocation.
const ALLOCATORS: [&str; 7] = [
    "malloc",
    "calloc",
    "mi_malloc",
    "mi_zalloc",
    "mi_calloc",
    "mi_malloc_aligned",
    "mi_zalloc_aligned",
];

/// Longest a dump may take to appear, and a `callgrind_control` call to return.
const CONTROL_LIMIT: Duration = Duration::from_secs(120);

/// A process under callgrind; killed when dropped.
pub struct Profiled {
    child: Child,
    dir: PathBuf,
    dumps: u32,
}

impl Profiled {
    /// Start `program args…` under callgrind, its output files in `dir`, its stdout and
    /// stderr in `dir/server.log`.
    pub fn spawn(
        program: &Path,
        args: &[String],
        envs: &[(String, String)],
        dir: &Path,
    ) -> Result<Profiled, BenchError> {
        let setup = |e: std::io::Error| BenchError::Setup(format!("valgrind: {e}"));
        std::fs::create_dir_all(dir).map_err(setup)?;
        let log = std::fs::File::create(dir.join("server.log")).map_err(setup)?;
        let child = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}/callgrind.out", dir.display()))
            .args(["--compress-strings=no", "--compress-pos=no", "--collect-systime=no"])
            .arg(program)
            .args(args)
            .envs(envs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(log.try_clone().map_err(setup)?)
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .map_err(setup)?;
        Ok(Profiled {
            child,
            dir: dir.to_path_buf(),
            dumps: 0,
        })
    }

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Zero every counter: a window starts.
    pub async fn zero(&mut self) -> Result<(), BenchError> {
        self.control("-z").await
    }

    /// Dump the counters since the last zero or dump: what the window cost.
    pub async fn dump(&mut self) -> Result<CpuCounts, BenchError> {
        self.control("-d").await?;
        self.dumps += 1;
        let file = self.dir.join(format!("callgrind.out.{}", self.dumps));
        let deadline = std::time::Instant::now() + CONTROL_LIMIT;
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if text.contains("\ntotals:") {
                    return parse(&text);
                }
            }
            if std::time::Instant::now() > deadline {
                return Err(BenchError::Setup(format!("no callgrind dump at {}", file.display())));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn control(&self, flag: &str) -> Result<(), BenchError> {
        let run = tokio::process::Command::new("callgrind_control")
            .arg(flag)
            .arg(self.pid().to_string())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(CONTROL_LIMIT, run)
            .await
            .map_err(|_| BenchError::Setup(format!("callgrind_control {flag} ran past its limit")))?
            .map_err(|e| BenchError::Setup(format!("callgrind_control: {e}")))?;
        if !out.status.success() {
            return Err(BenchError::Setup(format!(
                "callgrind_control {flag}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }
}

impl Drop for Profiled {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A dump's instructions (its `summary:` line, the total of the part) and its calls into
/// [`ALLOCATORS`] from functions outside them (`cfn=` names the callee, the `calls=` line
/// after it the count; names are uncompressed, `--compress-strings=no`).
pub fn parse(text: &str) -> Result<CpuCounts, BenchError> {
    let mut counts = CpuCounts::default();
    let (mut caller_allocates, mut callee_allocates) = (false, false);
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("fn=") {
            caller_allocates = is_allocator(name);
        } else if let Some(name) = line.strip_prefix("cfn=") {
            callee_allocates = is_allocator(name);
        } else if let Some(rest) = line.strip_prefix("calls=") {
            if callee_allocates && !caller_allocates {
                counts.allocations += first_number(rest);
            }
        } else if let Some(rest) = line.strip_prefix("summary:") {
            counts.instructions = first_number(rest);
        }
    }
    if counts.instructions == 0 {
        return Err(BenchError::Setup("a callgrind dump without totals".into()));
    }
    Ok(counts)
}

/// A name of [`ALLOCATORS`], with or without the file part callgrind may add (`name'2` for
/// recursion, ` [file]` for an object).
fn is_allocator(name: &str) -> bool {
    let bare = name.split([' ', '\'']).next().unwrap_or("");
    ALLOCATORS.contains(&bare)
}

fn first_number(s: &str) -> u64 {
    s.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Totals come from `totals:`; a call into mimalloc from Rust counts, one inside the
    /// allocator (mi_malloc_aligned into mi_malloc) does not.
    #[test]
    fn totals_and_allocator_calls() {
        let dump = "events: Ir\nfn=alloc::vec::Vec::push\n12 40\ncfn=mi_malloc_aligned\ncalls=3 0\n12 90\n\
                    fn=mi_malloc_aligned\n1 5\ncfn=mi_malloc\ncalls=3 0\n1 60\nfn=main\ncfn=malloc\ncalls=2 0\n3 7\n\
                    summary: 1234\ntotals: 1234\n";
        let c = parse(dump).unwrap();
        assert_eq!((c.instructions, c.allocations), (1234, 5));
    }
}
