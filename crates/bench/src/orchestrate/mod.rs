//! Benchmarks run as processes beside allot's own load: a fresh PostgreSQL database per run
//! (`fresh_db`), this build against a git revision built in a worktree (`rev`), the queue's
//! peer (graphile-worker, with Node.js and npm: `peer`), and the textbook statements and the
//! batch's own write run by pgbench on the same database as references (`pgbench_refs`,
//! `batch_ref`, `compare_batch`). The CLI parses the flags and calls these; nothing here
//! knows clap.

pub mod batch_ref;
pub mod compare_batch;
pub mod fresh_db;
pub mod peer;
pub mod pgbench_refs;
pub mod rev;
