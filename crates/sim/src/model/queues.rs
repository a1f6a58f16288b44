//! A queue's settings in the model, and what they let a claim take (docs/queue.md, "Queue
//! settings"): a paused queue leases nothing; `max_running` bounds the queue's running jobs,
//! `max_running_per_key` each `partition_key`'s (a job without one only by the first); a
//! rate bounds the starts in the window `(now − window_ms, now]`, queue-wide or per key (a
//! job without a key is then not rate limited); `fifo_per_key` runs a key's jobs one at a
//! time in id order (a job waits while an earlier one of its key is unfinished, or one of its
//! key runs). Every bound counts the jobs this very claim took before. Starts are recorded
//! only by claims of a queue that has a rate, and settings put without one forget them.

use super::{Done, Model};
use crate::ops::Settings;
use allot_core::job::queue::QueueSettings;
use allot_core::job::JobState;
use allot_core::AllotError;
use serde_json::{json, Value};

/// A start a claim recorded: the queue, the job's key and the instant (µs).
pub(super) type Start = (String, Option<String>, i64);

impl Model {
    /// `PUT /v1/queues/{queue}`: the settings replaced whole (validated by core first).
    pub(super) fn put_settings(&mut self, queue: &str, s: &Settings) -> Result<Done, AllotError> {
        let body = super::parse(s.json())?;
        let settings = allot_core::validate::queue_settings(queue, body, &self.limits)?;
        if settings.rate.is_none() {
            // Settings without a rate forget the starts recorded under one.
            self.starts.retain(|(q, _, _)| q != queue);
        }
        self.queue_settings.insert(queue.to_string(), settings);
        // A PUT starts a fair queue's round again.
        self.fair_cursors.remove(queue);
        Ok((200, self.settings_view(queue), None))
    }

    /// `POST /v1/queues/{queue}/pause` or `/resume`: only `paused` changes.
    pub(super) fn pause_queue(&mut self, queue: &str, pause: bool) -> Result<Done, AllotError> {
        let s = self
            .queue_settings
            .entry(queue.to_string())
            .or_insert_with(|| QueueSettings {
                queue: queue.to_string(),
                ..QueueSettings::default()
            });
        s.paused = pause;
        Ok((200, self.settings_view(queue), None))
    }

    fn settings_view(&self, queue: &str) -> Value {
        let s = self.settings(queue);
        json!({
            "paused": s.paused,
            "max_running": s.max_running,
            "max_running_per_key": s.max_running_per_key,
            "rate": s.rate.map(|r| json!({"per_window": r.per_window, "window_ms": r.window_ms, "per_key": r.per_key})),
            "fifo_per_key": s.fifo_per_key,
            "keep_completed": s.keep_completed,
            "fair_by": s.fair_by.map(allot_core::job::fair::FairBy::as_str),
            "weights": (!s.weights.is_empty()).then_some(&s.weights),
            "events": s.events,
        })
    }

    /// The settings in force (the defaults for a queue that has none).
    pub(super) fn settings(&self, queue: &str) -> QueueSettings {
        self.queue_settings.get(queue).cloned().unwrap_or_default()
    }

    /// How many more jobs a claim of `max` may take from `queue` whatever their keys.
    pub(super) fn room(&self, queue: &str, max: i64) -> i64 {
        let s = self.settings(queue);
        if s.paused {
            return 0;
        }
        let mut take = max;
        if let Some(n) = s.max_running {
            take = take.min(n - self.running(queue, None));
        }
        if let Some(r) = s.rate.filter(|r| !r.per_key) {
            take = take.min(r.per_window - self.started(queue, None, r.window_ms));
        }
        take.max(0)
    }

    /// Whether job `id` of `queue` (key `key`) may start now, by its key's bounds.
    pub(super) fn key_allows(&self, queue: &str, id: i64, key: Option<&str>) -> bool {
        let Some(k) = key else { return true };
        let s = self.settings(queue);
        if s.fifo_per_key && (self.running(queue, Some(k)) > 0 || self.earlier_unfinished(queue, k, id)) {
            return false;
        }
        if s.max_running_per_key.is_some_and(|n| self.running(queue, Some(k)) >= n) {
            return false;
        }
        let per_key_rate = s.rate.filter(|r| r.per_key);
        per_key_rate.is_none_or(|r| self.started(queue, Some(k), r.window_ms) < r.per_window)
    }

    /// Running jobs of `queue` (of key `key` only, when given).
    fn running(&self, queue: &str, key: Option<&str>) -> i64 {
        let of_key = |j: &super::jobs::Job| key.is_none() || j.partition_key() == key;
        self.jobs
            .values()
            .filter(|j| j.queue() == queue && j.state() == JobState::Running && of_key(j))
            .count() as i64
    }

    /// Whether a job of `queue` and key `k` before `id` is waiting (a `pending` one does not
    /// count: it holds no turn of its key) or running.
    fn earlier_unfinished(&self, queue: &str, k: &str, id: i64) -> bool {
        self.jobs.range(..id).any(|(_, j)| {
            j.queue() == queue
                && j.partition_key() == Some(k)
                && !j.state().is_finished()
                && j.state() != JobState::Pending
        })
    }

    /// Starts recorded for `queue` (of key `key` only, when given) in the last `window_ms`.
    fn started(&self, queue: &str, key: Option<&str>, window_ms: i64) -> i64 {
        let since = self.now_us() - window_ms * 1000;
        self.starts
            .iter()
            .filter(|(q, k, at)| q == queue && (key.is_none() || k.as_deref() == key) && *at > since)
            .count() as i64
    }
}
