//! # allot-conformance
//!
//! The store conformance suite, in the manner of River's driver test suite
//! (`riverdrivertest`): a library of cases over the store traits (no HTTP) that every backend
//! runs against a fresh database of its own, so a new backend is held to the same behaviour
//! from its first day. Each store method has at least one case, which checks its behaviour,
//! and where the method writes, its idempotent replay; [`isolation`] checks tenant isolation
//! across the domains, `stock::every_instant_comes_from_the_clock` the injected clock; every
//! case ends with a clean audit ([`Fixture::finish`]).
//!
//! A backend's runner makes a [`Fixture`] per case and expands [`suite!`] once per backend:
//!
//! ```ignore
//! mod postgres {
//!     allot_conformance::suite!(super::fixture(allot_core::Backend::Postgres));
//! }
//! ```
//!
//! The HTTP contract has its own suite (the server's tests); this one is the store's.
//!
//! | store method | case |
//! |---|---|
//! | `health`, `get_sku`, `list_skus`, `ledger`, `get_allocation`, `list_allocations` | `stock::stock_reads_and_lists` |
//! | `create_sku`, `allocate` | `stock::exact_successes_under_contention`, `stock::a_refusal_never_contradicts_its_figure`, `stock::one_key_one_effect`, `stock::a_replay_frees_its_key_at_once` |
//! | `adjust`, `rebalance` | `stock::adjustments_and_rebalance` |
//! | `cancel_allocation`, `return_allocation` | `stock::cancels_and_returns` |
//! | `create_location`, `list_locations`, `transfer`, `set_level` | `stock::locations_transfers_and_levels` |
//! | `add_incoming`, `receive` | `receiving::incoming_and_receipts`, `receiving::receipts_never_exceed_their_incoming` |
//! | `move_stock` | `states::moves_between_states`, `states::moves_race_allocations` |
//! | every stock write's `reason` and `reference` (ledger and events) | `reasons::every_change_carries_its_reason` |
//! | `put_kit`, `kits`, `delete_kit` (and kit lines in allocations and holds) | `kits::kits_take_and_give_back_every_component`, `kits::a_storm_of_kits_never_oversells_a_component` |
//! | `set_backorder_limit` (and owed lines in allocations, their fills and cancels) | `backorders::backorders_fill_oldest_first`, `backorders::a_storm_never_jumps_the_queue`, `backorders::owed_lines_take_every_location`, `backorders::holds_give_back_to_owed_lines`, `backorders::releases_race_newcomers_over_buckets` |
//! | `create_hold`, `get_hold`, `list_holds`, `extend_hold`, `confirm_hold`, `release_hold` | `holds::hold_lifecycle` |
//! | `expire_holds` | `holds::holds_expire_by_the_clock` |
//! | `add_units`, `list_units`, `get_unit`, `claim_units` | `units::units_listed_and_read`, `units::no_unit_twice`, `units::units_of_an_expired_hold` |
//! | `book`, `get_booking`, `confirm_booking`, `extend_booking`, `release_booking`, `cancel_booking`, `list_bookings`, `expire_bookings` | `bookings::booking_lifecycle`, `bookings::one_booking_of_ten`, `bookings::never_overlapping_under_every_strategy` |
//! | `enqueue`, `claim_jobs`, `complete_job`, `cancel_job`, `queue_counts` | `jobs::keyed_job_transitions_replay`, `jobs::no_job_leased_twice` |
//! | `fail_job`, `heartbeat_job`, `complete_jobs`, `retry_job`, `list_jobs`, `wait_for_jobs`, `rescue_jobs`, `prune_jobs`, `queue_depths` | `jobs::job_lifecycle` |
//! | `bulk_jobs` | `queues::bulk_actions_by_filter` |
//! | `reschedule_job` | `queues::reschedule_moves_a_waiting_job` |
//! | the enqueue's `traceparent`, returned by claims | `queues::trace_context_travels_with_the_job` |
//! | `keep_completed` (completions delete the job) | `queues::completed_jobs_dropped_when_not_kept` |
//! | `list_queues`, `fold_queue_counts` (and `queue_counts`, `queue_depths` read the maintained counts) | `queues::queue_counts_are_maintained` |
//! | `create_schedule`, `list_schedules`, `pause_schedule`, `delete_schedule`, `run_schedules` | `queues::schedules_tick_once_across_stores` |
//! | fair claims (`fair_by`, weights, the round's cursor) | `fair::fair_claims_serve_every_key`, `fair::fair_claims_under_claimers`, `fair::fair_claims_with_a_per_key_limit` |
//! | batches with a callback, released once | `batches::one_callback_per_batch` |
//! | job dependencies (`depends_on`, propagation of a failure) | `depend::dependencies_wait_and_propagate`, `depend::dependency_graphs_under_workers` |
//! | `snooze_job`, `put_queue_settings`, `queue_settings`, `pause_queue`, `job_detail`, `list_jobs` (any state, by tag) | `queues::pause_snooze_output_and_detail`, `queues::rates_limits_and_reasons`, `queues::per_key_limit_under_claimers`, `queues::fifo_per_key_keeps_order` |
//! | `create_key`, `list_keys`, `revoke_key`, `key_by_hash`, `any_key` | `keys::keys_by_tenant` |
//! | `heartbeat`, `instances` | `instances::instances_by_heartbeat` |
//! | `audit` | every case ([`Fixture::finish`]) |
//! | `prune_idempotency_keys` | `stock::every_instant_comes_from_the_clock` |
//! | `events`, `sequence_events`, `oldest_unsequenced_event`, `prune_events` (and every write's event), `set_low_stock` | `events::every_change_is_an_event`, `events::pages_filters_and_tenants`, `events::exactly_once_by_cursor_under_writers`, `events::thresholds_once_under_a_storm`, `events::thresholds_per_location`, `events::one_request_across_locations`, `events::order_kept_across_small_rounds` |
//! | `create_webhook`, `list_webhooks`, `delete_webhook`, `rotate_webhook_secret`, `webhook_target`, `record_attempt`, `webhook_dispatch`, `advance_webhook_dispatch` | `webhooks::endpoints_by_tenant` |
//! | `wait_for_events` | `events::a_waiting_reader_is_woken` |

#![allow(clippy::too_many_lines)] // test cases are exempt from the 70-line rule

pub mod backorders;
pub mod batches;
pub mod bookings;
pub mod depend;
pub mod events;
pub mod fair;
pub mod fixture;
pub mod holds;
pub mod instances;
pub mod isolation;
pub mod jobs;
pub mod keys;
pub mod kits;
pub mod queues;
pub mod reasons;
pub mod receiving;
pub mod states;
pub mod stock;
pub mod units;
pub mod upgrade;
pub mod webhooks;

pub use fixture::Fixture;

/// One `#[tokio::test]` per case, each on the fixture `$make` (an expression of type
/// `impl Future<Output = Fixture>`, evaluated per case). Expand it once per backend, in a
/// module of its own.
#[macro_export]
macro_rules! suite {
    ($make:expr) => {
        $crate::suite!(@cases $make;
            stock::stock_reads_and_lists,
            stock::exact_successes_under_contention,
            stock::a_refusal_never_contradicts_its_figure,
            stock::one_key_one_effect,
            stock::a_replay_frees_its_key_at_once,
            stock::adjustments_and_rebalance,
            stock::cancels_and_returns,
            stock::locations_transfers_and_levels,
            stock::every_instant_comes_from_the_clock,
            receiving::incoming_and_receipts,
            receiving::receipts_never_exceed_their_incoming,
            states::moves_between_states,
            states::moves_race_allocations,
            reasons::every_change_carries_its_reason,
            kits::kits_take_and_give_back_every_component,
            kits::a_storm_of_kits_never_oversells_a_component,
            backorders::backorders_fill_oldest_first,
            backorders::a_storm_never_jumps_the_queue,
            backorders::owed_lines_take_every_location,
            backorders::holds_give_back_to_owed_lines,
            backorders::releases_race_newcomers_over_buckets,
            holds::hold_lifecycle,
            holds::holds_expire_by_the_clock,
            units::units_listed_and_read,
            units::no_unit_twice,
            units::units_of_an_expired_hold,
            bookings::booking_lifecycle,
            bookings::one_booking_of_ten,
            bookings::never_overlapping_under_every_strategy,
            jobs::keyed_job_transitions_replay,
            jobs::no_job_leased_twice,
            jobs::job_lifecycle,
            jobs::ids_count_only_their_tenant,
            queues::pause_snooze_output_and_detail,
            queues::rates_limits_and_reasons,
            queues::per_key_limit_under_claimers,
            queues::fifo_per_key_keeps_order,
            queues::schedules_tick_once_across_stores,
            queues::queue_counts_are_maintained,
            queues::bulk_actions_by_filter,
            queues::reschedule_moves_a_waiting_job,
            queues::trace_context_travels_with_the_job,
            queues::completed_jobs_dropped_when_not_kept,
            fair::fair_claims_serve_every_key,
            fair::fair_claims_under_claimers,
            fair::fair_claims_with_a_per_key_limit,
            depend::dependencies_wait_and_propagate,
            depend::dependency_graphs_under_workers,
            batches::one_callback_per_batch,
            keys::keys_by_tenant,
            instances::instances_by_heartbeat,
            isolation::other_tenants_objects_are_not_found,
            events::every_change_is_an_event,
            events::pages_filters_and_tenants,
            events::exactly_once_by_cursor_under_writers,
            events::thresholds_once_under_a_storm,
            events::thresholds_per_location,
            events::one_request_across_locations,
            events::order_kept_across_small_rounds,
            webhooks::endpoints_by_tenant,
            events::a_waiting_reader_is_woken,
        );
    };
    (@cases $make:expr; $($module:ident :: $name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                $crate::$module::$name($make.await).await
            }
        )*
    };
}
