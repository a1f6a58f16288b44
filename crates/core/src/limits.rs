//! Named limits. Every limit has a name (the one `limit_exceeded` errors carry and
//! `allot serve --help` lists), a default and a check.

/// The configurable limits of a server. Defaults are the documented ones (`allot serve --help`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `max_body_bytes`: largest request body, bytes (413 beyond). Default 1 MiB.
    pub max_body_bytes: usize,
    /// `max_lines`: lines per allocation request. Default 100.
    pub max_lines: usize,
    /// `max_name_len`: SKU/resource/queue name length, chars. Default 128.
    pub max_name_len: usize,
    /// `max_batch_insert`: rows per bulk insert request. Default 10 000.
    pub max_batch_insert: usize,
    /// `max_quantity`: largest quantity, on_hand or |delta| in one request. Default 10^12,
    /// so sums of many can never overflow i64.
    pub max_quantity: i64,
    /// `max_buckets`: most buckets a segmented SKU may have. Default 64.
    pub max_buckets: u32,
    /// `max_tx_retries`: retries of a transaction after 40001 serialization_failure or
    /// 40P01 deadlock_detected. Default 5.
    pub max_tx_retries: u32,
    /// `optimistic_max_attempts`: attempts of the optimistic strategy before `contention`. Default 8.
    pub optimistic_max_attempts: u32,
    /// `max_page_size`: largest `limit` of a ledger page. Default 1000.
    pub max_page_size: u32,
    /// `max_idempotency_key_len`: longest `Idempotency-Key`. Default 255.
    pub max_idempotency_key_len: usize,
    /// `max_reason_len`: longest adjustment reason, chars. Default 1000.
    pub max_reason_len: usize,
    /// `min_hold_ttl_ms`: shortest hold. Default 1000.
    pub min_hold_ttl_ms: u64,
    /// `max_hold_ttl_ms`: longest hold. Default 86 400 000 (24 h).
    pub max_hold_ttl_ms: u64,
    /// `max_unit_claim`: most units one unit claim may ask for. Default 1000.
    pub max_unit_claim: i64,
    /// `max_order_by`: most keys in a unit claim's `order_by`. Default 4.
    pub max_order_by: usize,
    /// `max_unit_field_len`: longest serial, location or lot, chars. Default 256.
    pub max_unit_field_len: usize,
    /// `unit_claim_max_attempts`: attempts of a unit claim (skip_locked retries, nowait_scan
    /// passes) when rows were locked by others, before `contention`. Default 8.
    pub unit_claim_max_attempts: u32,
    /// `hold_sweep_batch`: most overdue holds one sweeper statement finalises. Default 500.
    pub hold_sweep_batch: u32,
    /// `max_booking_ms`: longest booking range, and longest window of a booking list or
    /// availability query. Default 366 days.
    pub max_booking_ms: i64,
    /// `max_payload_bytes`: largest job payload, serialized bytes. Default 65 536.
    pub max_payload_bytes: usize,
    /// `min_lease_ms`: shortest job lease. Default 1000.
    pub min_lease_ms: i64,
    /// `max_lease_ms`: longest job lease. Default 3 600 000 (1 h).
    pub max_lease_ms: i64,
    /// `max_claim`: most jobs one claim may lease. Default 100.
    pub max_claim: i64,
    /// `max_job_attempts`: largest `max_attempts` of a job. Default 100.
    pub max_job_attempts: i64,
    /// `max_wait_ms`: longest long-poll of a claim. Default 30 000.
    pub max_wait_ms: i64,
    /// `job_poll_interval_ms`: longest a waiting claim sleeps without a wake-up before it
    /// claims again (jobs whose `run_at` arrives, or enqueued by another process on SQLite, are
    /// seen at least this often). Enqueues wake waiters at once (PostgreSQL: LISTEN/NOTIFY;
    /// SQLite: in process). Default 250.
    pub job_poll_interval_ms: u64,
    /// `batch_max_requests`: most requests one transaction of the `batched` strategy serves.
    /// Default 512.
    pub batch_max_requests: usize,
    /// `batch_max_queued`: most requests waiting for a `batched` transaction in one server
    /// instance; beyond it a request is refused `503 unavailable` (back-pressure). Default 20 000.
    pub batch_max_queued: usize,
    /// `redis_lock_max_attempts`: attempts to take one SKU's Redis lock (full-jitter waits
    /// between them) before `409 contention`. Default 200.
    pub redis_lock_max_attempts: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1 << 20,
            max_lines: 100,
            max_name_len: 128,
            max_batch_insert: 10_000,
            max_quantity: 1_000_000_000_000,
            max_buckets: 64,
            max_tx_retries: 5,
            optimistic_max_attempts: 8,
            max_page_size: 1000,
            max_idempotency_key_len: 255,
            max_reason_len: 1000,
            min_hold_ttl_ms: 1000,
            max_hold_ttl_ms: 86_400_000,
            max_unit_claim: 1000,
            max_order_by: 4,
            max_unit_field_len: 256,
            unit_claim_max_attempts: 8,
            hold_sweep_batch: 500,
            max_booking_ms: 366 * 86_400_000,
            max_payload_bytes: 65_536,
            min_lease_ms: 1000,
            max_lease_ms: 3_600_000,
            max_claim: 100,
            max_job_attempts: 100,
            max_wait_ms: 30_000,
            job_poll_interval_ms: 250,
            batch_max_requests: 512,
            batch_max_queued: 20_000,
            redis_lock_max_attempts: 200,
        }
    }
}
