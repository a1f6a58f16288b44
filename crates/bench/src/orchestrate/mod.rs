//! Benchmarks run as processes beside allot's own load: a fresh PostgreSQL database per run
//! (`fresh_db`), this build against a git revision built in a worktree (`rev`), the queue's
//! peer (graphile-worker, with Node.js and npm: `peer`), and the textbook statements and the
//! batch's own write run by pgbench on the same database as references (`pgbench_refs`,
//! `batch_ref`, `compare_batch`); and each `allot bench` workload run on a server and
//! reported: its table, its JSON, its checks (`stock_runs`, `flow_runs`, `queue_runs`, `chaos_runs`,
//! `compare_all` with `compare_http` and `compare_options`, `cost_runs`, over `report`). The CLI parses the flags, starts the
//! in-process server a run loads, and calls these; nothing here knows clap.

pub mod batch_ref;
pub mod chaos_runs;
pub mod compare_all;
pub mod compare_batch;
mod compare_http;
pub mod compare_options;
pub mod cost_runs;
pub mod flow_runs;
pub mod fresh_db;
pub mod peer;
pub mod pgbench_refs;
pub mod queue_runs;
pub mod report;
pub mod rev;
pub mod stock_runs;
