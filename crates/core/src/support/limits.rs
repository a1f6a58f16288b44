//! Named limits. Every limit has a name (the one `limit_exceeded` errors carry and
//! `allot serve --help` lists), a default, a help text and a check — all written once, in the
//! table below: the struct, its `Default`, [`Limits::TABLE`] (what the CLI turns into
//! `--flags` and `ALLOT_*` variables, and what documentation can list) and [`Limits::set`]
//! come from it.

/// One limit as the table gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitInfo {
    /// The limit's name (`max_lines`); its flag is `--max-lines`, its variable `ALLOT_MAX_LINES`.
    pub name: &'static str,
    /// What it bounds, with its unit.
    pub help: &'static str,
    /// The smallest value it accepts.
    pub min: i64,
    /// The largest value it accepts, where the engines bound it (`None`: the type's).
    pub max: Option<i64>,
}

macro_rules! limits {
    (@max) => { None::<i64> };
    (@max $max:expr) => { Some::<i64>($max) };
    ($( $(#[doc = $doc:literal])+ $name:ident : $ty:ty = $default:expr, min $min:expr $(, max $max:expr)?; )*) => {
        /// The configurable limits of a server (see the module docs for where each comes from).
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Limits {
            $( $(#[doc = $doc])+ pub $name: $ty, )*
        }

        impl Default for Limits {
            fn default() -> Self {
                Limits { $( $name: $default, )* }
            }
        }

        impl Limits {
            /// Every limit: name, help text, smallest and largest value, in declaration order.
            pub const TABLE: &'static [LimitInfo] = &[
                $( LimitInfo {
                    name: stringify!($name),
                    help: concat!($($doc),+),
                    min: $min,
                    max: limits!(@max $($max)?),
                }, )*
            ];

            /// The default of the limit `name`, as text.
            pub fn default_text(name: &str) -> Option<String> {
                let d = Limits::default();
                match name {
                    $( stringify!($name) => Some(d.$name.to_string()), )*
                    _ => None,
                }
            }

            /// Set the limit `name` from text. Errors name the limit and say why.
            pub fn set(&mut self, name: &str, value: &str) -> std::result::Result<(), String> {
                match name {
                    $( stringify!($name) => {
                        let v: $ty = value.trim().parse().map_err(|e| format!("{name}: `{value}`: {e}"))?;
                        if (v as i128) < ($min as i128) {
                            return Err(format!("{name}: {v} is below its minimum {}", $min));
                        }
                        if let Some(max) = limits!(@max $($max)?) {
                            if (v as i128) > (max as i128) {
                                return Err(format!("{name}: {v} is above its maximum {max}"));
                            }
                        }
                        self.$name = v;
                        Ok(())
                    } )*
                    _ => Err(format!("no limit is named `{name}`")),
                }
            }
        }
    };
}

limits! {
    /// Largest request body, bytes (413 beyond).
    max_body_bytes: usize = 1 << 20, min 1;
    /// Most lines in one allocation request.
    max_lines: usize = 100, min 1;
    /// Longest SKU, resource or queue name, chars.
    max_name_len: usize = 128, min 1;
    /// Most rows in one bulk insert request.
    max_batch_insert: usize = 10_000, min 1;
    /// Largest quantity, on_hand or |delta| in one request (10^12, so sums of many never
    /// overflow i64).
    max_quantity: i64 = 1_000_000_000_000, min 1;
    /// Most buckets of a segmented SKU (at each location).
    max_buckets: u32 = 64, min 1;
    /// Most locations of a tenant besides `default`, and in a ranked placement list.
    max_locations: u32 = 64, min 1;
    /// Retries of a transaction after 40001 serialization_failure or 40P01 deadlock_detected.
    max_tx_retries: u32 = 5, min 0;
    /// Attempts of the optimistic strategy before `409 contention`.
    optimistic_max_attempts: u32 = 8, min 1;
    /// Largest `limit` of a page of any listing (the ledger, SKUs, allocations, holds,
    /// units, jobs, queues) and of the change feed.
    max_page_size: u32 = 1000, min 1;
    /// Longest `Idempotency-Key`, bytes.
    max_idempotency_key_len: usize = 255, min 1;
    /// Longest job error text, chars (stock reasons are a closed set).
    max_reason_len: usize = 1000, min 0;
    /// Longest lease token, bytes (the server makes 36-char UUIDs).
    max_token_len: usize = 128, min 1;
    /// Shortest hold (`ttl_ms`, `hold_ttl_ms`), ms.
    min_hold_ttl_ms: u64 = 1000, min 1;
    /// Longest hold, ms (24 h).
    max_hold_ttl_ms: u64 = 86_400_000, min 1;
    /// Most units one unit claim may ask for.
    max_unit_claim: i64 = 1000, min 1;
    /// Most keys in a unit claim's `order_by`.
    max_order_by: usize = 4, min 1;
    /// Longest unit serial, location or lot, chars.
    max_unit_field_len: usize = 256, min 1;
    /// Attempts of a unit claim (skip_locked retries, nowait_scan passes) when rows were
    /// locked by others, before `409 contention` (one more for a claim allowing partial,
    /// which first asks for all it wants).
    unit_claim_max_attempts: u32 = 8, min 1;
    /// Most overdue holds one sweeper statement finalises.
    hold_sweep_batch: u32 = 500, min 1;
    /// Longest booking range, and longest window of a booking list or availability query,
    /// ms (366 days).
    max_booking_ms: i64 = 366 * 86_400_000, min 1;
    /// Largest job payload, serialized bytes.
    max_payload_bytes: usize = 65_536, min 1;
    /// Largest booking metadata, serialized bytes.
    max_metadata_bytes: usize = 16_384, min 1;
    /// Most bytes of stored documents (payloads, error lists) one page of a job listing
    /// carries: a page ends at `limit` jobs or once this many bytes are in it, whichever comes
    /// first (at least one job; page on with the last id), so a listing's memory is bounded
    /// by bytes as well as by count.
    max_page_bytes: usize = 1_048_576, min 1;
    /// Longest explicit `retry_in_ms` of a failed job, ms (30 days).
    max_retry_in_ms: i64 = 30 * 86_400_000, min 0;
    /// Shortest job lease, ms.
    min_lease_ms: i64 = 1000, min 1;
    /// Longest job lease, ms (1 h).
    max_lease_ms: i64 = 3_600_000, min 1;
    /// Most jobs one claim may lease.
    max_claim: i64 = 100, min 1;
    /// Largest `max_attempts` of a job.
    max_job_attempts: i64 = 100, min 1;
    /// Most tags of one job (each 1..=`max_unit_field_len` chars).
    max_job_tags: usize = 16, min 0;
    /// Most `depends_on` ids of one job.
    max_job_dependencies: usize = 100, min 0;
    /// Longest chain of dependencies ending at a job (a job without any is at depth 0; one
    /// depending on it at 1): bounds how far a discarded job's dependents are discarded in
    /// one step. At most 500: SQLite settles a chain by a trigger per level, and stops at 1000
    /// levels of triggers.
    max_dependency_depth: i64 = 100, min 0, max 500;
    /// Largest `max_running`, `max_running_per_key` or `rate.per_window` of a queue.
    max_queue_limit: i64 = 100_000, min 1;
    /// Longest `rate.window_ms` of a queue, ms (1 day).
    max_rate_window_ms: i64 = 86_400_000, min 1;
    /// Longest snooze (`delay_ms`) of a running job, ms (30 days).
    max_snooze_ms: i64 = 30 * 86_400_000, min 0;
    /// Most jobs one bulk call (`POST /v1/queues/{queue}/jobs/bulk`) acts on.
    max_bulk_jobs: i64 = 1000, min 1;
    /// Most schedules of one tenant.
    max_schedules: u32 = 1000, min 1;
    /// How late a schedule's tick may be enqueued, ms: later ticks are missed (`skip` drops
    /// them, `run_once` runs one for them).
    schedule_grace_ms: i64 = 60_000, min 0;
    /// Longest long-poll (`wait_ms`) of a job claim, ms.
    max_wait_ms: i64 = 30_000, min 0;
    /// Longest a waiting job claim sleeps without a wake-up before it claims again, ms (jobs
    /// whose `run_at` arrives, or enqueued by another process on SQLite, are seen at least
    /// this often; an enqueue wakes waiters at once).
    job_poll_interval_ms: u64 = 250, min 1;
    /// Longest a reader of the change feed (a stream) sleeps without a wake-up before it
    /// reads again, ms (events numbered by another instance's sequencer are seen at least
    /// this often; this instance's wake its readers at once).
    event_poll_interval_ms: u64 = 250, min 1;
    /// How often the sequencer gives committed events their cursors on PostgreSQL, ms: the
    /// most the feed runs behind the writes when it keeps up.
    event_sequence_interval_ms: u64 = 50, min 1;
    /// Most events one sequencer transaction numbers.
    event_sequence_batch: u32 = 10_000, min 1;
    /// Most open event streams (`GET /v1/events/stream`) per API key.
    max_streams_per_key: u32 = 8, min 1;
    /// Most requests one transaction of the `batched` strategy serves.
    batch_max_requests: usize = 512, min 1;
    /// Most requests waiting for a `batched` transaction in one server instance; beyond it a
    /// request is refused `503 unavailable` (back-pressure).
    batch_max_queued: usize = 20_000, min 1;
    /// Most per-request writers of one SKU's stock row in PostgreSQL at once, per instance
    /// (allocations and holds of `atomic`, `pessimistic`, `optimistic`, `redis_counter`, not
    /// pinned to a location; SQLite has one writer anyway); the others wait in arrival order,
    /// holding no connection, at most the pool's wait (0: no gate). A hot row serves a short
    /// queue faster than a long one.
    sku_writers: usize = 2, min 0;
    /// Most operations in one `POST /v1/batch` request.
    max_batch_operations: usize = 1000, min 1;
    /// Most operations of one `POST /v1/batch` running at once outside the `batched` lanes
    /// (each may hold a database connection while it waits on a row lock).
    max_batch_concurrency: usize = 16, min 1;
    /// Attempts to take one SKU's Redis lock (`redis_lock`, full-jitter waits between them)
    /// before `409 contention`.
    redis_lock_max_attempts: u32 = 200, min 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_field_and_set_reaches_each() {
        assert_eq!(Limits::TABLE.len(), 50);
        let mut l = Limits::default();
        for info in Limits::TABLE {
            let d = Limits::default_text(info.name).unwrap();
            l.set(info.name, &d).unwrap();
            assert!(!info.help.is_empty(), "{}", info.name);
        }
        assert_eq!(l, Limits::default());
        l.set("max_lines", "7").unwrap();
        assert_eq!(l.max_lines, 7);
        assert!(l.set("max_lines", "0").unwrap_err().contains("minimum"));
        assert!(l.set("max_lines", "x").unwrap_err().contains("max_lines"));
        assert!(l.set("nope", "1").is_err());
    }

    #[test]
    fn a_bounded_limit_refuses_past_its_maximum() {
        let mut l = Limits::default();
        l.set("max_dependency_depth", "500").unwrap();
        let e = l.set("max_dependency_depth", "501").unwrap_err();
        assert!(e.contains("maximum 500"), "{e}");
        assert_eq!(l.max_dependency_depth, 500);
        let info = Limits::TABLE.iter().find(|i| i.name == "max_dependency_depth").unwrap();
        assert_eq!(info.max, Some(500));
        assert!(Limits::TABLE.iter().filter(|i| i.max.is_some()).count() == 1);
    }
}
