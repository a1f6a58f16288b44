//! Flat-combining queues, one per key: plain data and channels, nothing that touches the
//! database, shared by `batched` unit claims (`units/batched.rs`, keyed by tenant, SKU and
//! order) and `batched` bookings (`bookings/batched.rs`, keyed by lane).
//!
//! A request joins its key's queue; when no task of the key is running, the one that joined
//! starts it. That task takes what is queued (up to a batch), decides it in one transaction,
//! answers each request and goes on until the queue is empty, with up to a depth of batches
//! in flight (see [`FlatQueues::run`]); a caller that goes away cannot abandon a batch
//! between its commit and its answers. (Flat combining: Hendler, Incze,
//! Shavit and Tzafrir, "Flat combining and the synchronization-parallelism tradeoff",
//! SPAA 2010.)

use allot_core::{AllotError, Result};
use futures::future::CatchUnwind;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use tokio::sync::{oneshot, Notify};

/// Where a request's answer goes.
pub(crate) type Reply<A> = oneshot::Sender<Result<A>>;

/// One key's waiting requests, whether a task is running its batches, and how that task
/// hears of a request that joined while it runs.
struct Queue<T, A> {
    pending: Vec<(T, Reply<A>, tracing::Span)>,
    running: bool,
    arrived: Arc<Notify>,
}

/// Every key's queue of one store.
pub(crate) struct FlatQueues<K, T, A> {
    queues: Mutex<HashMap<K, Queue<T, A>>>,
}

impl<K, T, A> Default for FlatQueues<K, T, A> {
    fn default() -> Self {
        FlatQueues {
            queues: Mutex::new(HashMap::new()),
        }
    }
}

impl<K, T, A> std::fmt::Debug for FlatQueues<K, T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatQueues").finish_non_exhaustive()
    }
}

/// A joined request: where its answer comes, and whether the caller must start the key's
/// task (no task of the key was running).
pub(crate) struct Joined<A> {
    pub(crate) answer: oneshot::Receiver<Result<A>>,
    pub(crate) start: bool,
}

impl<A> Joined<A> {
    /// The answer; `503 unavailable` when the task ended without one (it panicked).
    pub(crate) async fn answer(self, what: &str) -> Result<A> {
        self.answer
            .await
            .unwrap_or_else(|_| Err(AllotError::Unavailable(format!("the {what} batch stopped"))))
    }
}

impl<K: Hash + Eq + Clone, T, A> FlatQueues<K, T, A> {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Queue<T, A>>> {
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue `item` under `key`. With `max_queued` already waiting there it is
    /// `503 unavailable` at once (`what` names the queue in the message).
    pub(crate) fn join(&self, key: &K, item: T, max_queued: usize, what: &str) -> Result<Joined<A>> {
        let (tx, rx) = oneshot::channel();
        let mut queues = self.lock();
        let q = queues.entry(key.clone()).or_insert_with(|| Queue {
            pending: Vec::new(),
            running: false,
            arrived: Arc::new(Notify::new()),
        });
        if q.pending.len() >= max_queued {
            return Err(AllotError::Unavailable(format!(
                "{what} batch queue full (batch_max_queued = {max_queued})"
            )));
        }
        q.pending.push((item, tx, tracing::Span::current()));
        let start = !std::mem::replace(&mut q.running, true);
        if !start {
            q.arrived.notify_one();
        }
        Ok(Joined { answer: rx, start })
    }

    /// What the task of `key` waits on for requests that join while it runs (a `Notify`
    /// that never fires when the key has no queue).
    fn arrivals(&self, key: &K) -> Arc<Notify> {
        self.lock().get(key).map(|q| q.arrived.clone()).unwrap_or_default()
    }

    /// The next batch of `key`: up to `max` requests in arrival order, those whose caller went
    /// away dropped first. `None` when nothing waits; the key's queue is then removed when
    /// `may_end` (no batch of the key is still running), so the next request starts a new
    /// task.
    fn next_batch(&self, key: &K, max: usize, may_end: bool) -> Option<Vec<(T, Reply<A>, tracing::Span)>> {
        let mut queues = self.lock();
        let q = queues.get_mut(key)?;
        q.pending.retain(|(_, reply, _)| !reply.is_closed());
        if q.pending.is_empty() {
            if may_end {
                queues.remove(key);
            }
            return None;
        }
        let n = q.pending.len().min(max.max(1));
        Some(q.pending.drain(..n).collect())
    }

    /// The task of `key`: batches of up to `max` requests, each decided by `decide` (one
    /// answer per request, in order) in a span of `kind` that each request's span links to
    /// ([`crate::engine::trace::batch_span`]) and answered, until the queue is empty.
    ///
    /// Up to `depth` batches run at once: the next batch may begin when the one before it
    /// sends (or drops) its [`Go`], which a batch does once it has taken what it needs; it
    /// begins then with what waits, or with the first request to join after. With `depth` 1
    /// a batch begins only when the one before it has been answered. A batch that panics
    /// drops its own replies (its callers hear `unavailable`) and the others go on; if the
    /// task itself panics, the key's queue is removed, so its next request starts a new task
    /// instead of waiting on one that is gone.
    pub(crate) async fn run<F: Future<Output = Vec<Result<A>>>>(
        &self,
        (key, kind): (&K, &'static str),
        (max, depth): (usize, usize),
        mut decide: impl FnMut(Vec<T>, Go) -> F,
    ) {
        let _guard = RunGuard { queues: self, key };
        let arrived = self.arrivals(key);
        let mut batches = InFlight::new(depth, kind);
        loop {
            batches.room().await;
            let Some(batch) = self.next_batch(key, max, batches.is_empty()) else {
                if batches.is_empty() {
                    break; // nothing runs and nothing waits: the queue is gone
                }
                // A batch ending or a request joining: look again.
                tokio::select! {
                    _ = batches.next() => {}
                    _ = arrived.notified() => {}
                }
                continue;
            };
            let span = crate::engine::trace::batch_span(kind, batch.iter().map(|(_, _, s)| s));
            let (items, replies): (Vec<T>, Vec<Reply<A>>) = batch.into_iter().map(|(t, r, _)| (t, r)).unzip();
            let work = |go| {
                let answers = tracing::Instrument::instrument(decide(items, go), span);
                async move {
                    for (reply, answer) in replies.into_iter().zip(answers.await) {
                        let _ = reply.send(answer);
                    }
                }
            };
            batches.start(work, true).await;
        }
    }
}

/// The batches of one task in flight, at most `depth` at once, each under `catch_unwind`: a
/// batch that panics drops only what it owns (its requests' replies, so they hear
/// `unavailable`), and the others go on. Shared by [`FlatQueues::run`] and the `batched`
/// stock lanes (`batched/lane.rs`).
pub(crate) struct InFlight<F> {
    running: FuturesUnordered<CatchUnwind<AssertUnwindSafe<F>>>,
    depth: usize,
    kind: &'static str,
}

impl<F: Future<Output = ()>> InFlight<F> {
    /// No batch yet; at most `depth` (at least 1) at once; `kind` names them in the log.
    pub(crate) fn new(depth: usize, kind: &'static str) -> Self {
        InFlight {
            running: FuturesUnordered::new(),
            depth: depth.max(1),
            kind,
        }
    }

    /// Whether no batch runs.
    pub(crate) fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Wait for a batch to end; `None` when none runs.
    pub(crate) async fn next(&mut self) -> Option<()> {
        let ended = self.running.next().await?;
        if ended.is_err() {
            tracing::error!(kind = self.kind, "a batch panicked; its requests hear unavailable");
        }
        Some(())
    }

    /// Wait until fewer than `depth` batches run.
    pub(crate) async fn room(&mut self) {
        while self.running.len() >= self.depth {
            self.next().await;
        }
    }

    /// Begin the batch `work` makes around its [`Go`] once there is room, and drive the
    /// batches in flight until the next may begin: when this one sends or drops its go if
    /// `early`, else when every batch has ended.
    pub(crate) async fn start(&mut self, work: impl FnOnce(Go) -> F, early: bool) {
        self.room().await;
        let (go, mut gone) = oneshot::channel();
        self.running.push(AssertUnwindSafe(work(go)).catch_unwind());
        loop {
            tokio::select! {
                _ = &mut gone, if early => break,
                ended = self.next() => if ended.is_none() { break },
            }
        }
    }
}

/// A batch's word that the next batch of its key may begin (see [`FlatQueues::run`]): sent or
/// dropped once the batch has taken what it needs.
pub(crate) type Go = oneshot::Sender<()>;

/// Removes a key's queue when the task running it panics (see [`FlatQueues::run`]).
struct RunGuard<'a, K: Hash + Eq + Clone, T, A> {
    queues: &'a FlatQueues<K, T, A>,
    key: &'a K,
}

impl<K: Hash + Eq + Clone, T, A> Drop for RunGuard<'_, K, T, A> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.queues.lock().remove(self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FlatQueues;

    /// The first request starts the task, the next ones do not; a batch is at most `max`, in
    /// arrival order; a full queue refuses; an empty one is removed (the next starts anew).
    #[test]
    fn join_and_take() {
        let q: FlatQueues<u8, u32, u32> = FlatQueues::default();
        let a = q.join(&1, 10, 3, "test").unwrap();
        let b = q.join(&1, 11, 3, "test").unwrap();
        let c = q.join(&1, 12, 3, "test").unwrap();
        assert!(a.start && !b.start && !c.start);
        assert!(q.join(&1, 13, 3, "test").is_err(), "full at 3");
        drop(b);
        let batch: Vec<u32> = q
            .next_batch(&1, 5, true)
            .unwrap()
            .into_iter()
            .map(|(t, _, _)| t)
            .collect();
        assert_eq!(batch, [10, 12], "the dropped caller's request is gone");
        assert!(q.next_batch(&1, 5, false).is_none());
        let d = q.join(&1, 15, 3, "test").unwrap();
        assert!(!d.start, "a batch still runs: the queue stays");
        assert_eq!(q.next_batch(&1, 5, true).map(|b| b.len()), Some(1));
        assert!(q.next_batch(&1, 5, true).is_none());
        assert!(
            q.join(&1, 14, 3, "test").unwrap().start,
            "a new task after the queue emptied"
        );
        drop((a, c, d));
    }

    /// With a depth of 2 the next batch begins at the first one's go, while the first still
    /// runs; each request gets its own answer; the task ends when both have.
    #[tokio::test]
    async fn the_next_batch_begins_at_go() {
        use std::sync::{Arc, Mutex};
        let q: FlatQueues<u8, u32, u32> = FlatQueues::default();
        let (a, b) = (q.join(&1, 1, 9, "t").unwrap(), q.join(&1, 2, 9, "t").unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let second_began = Arc::new(tokio::sync::Notify::new());
        let decide = |items: Vec<u32>, go: super::Go| {
            let (log, second_began) = (log.clone(), second_began.clone());
            async move {
                let first = items == [1];
                log.lock().unwrap().push(format!("{items:?} began"));
                if first {
                    let _ = go.send(());
                    second_began.notified().await;
                } else {
                    second_began.notify_one();
                }
                log.lock().unwrap().push(format!("{items:?} ended"));
                items.iter().map(|x| Ok(x * 10)).collect()
            }
        };
        let run = q.run((&1, "test"), (1, 2), decide);
        tokio::time::timeout(std::time::Duration::from_secs(5), run)
            .await
            .expect("the second batch began while the first ran");
        assert_eq!(
            *log.lock().unwrap(),
            ["[1] began", "[2] began", "[2] ended", "[1] ended"]
        );
        assert_eq!((a.answer("t").await.unwrap(), b.answer("t").await.unwrap()), (10, 20));
        assert!(q.join(&1, 3, 9, "t").unwrap().start, "the queue ended with the task");
    }

    /// A request that joins after the first batch's go, while nothing else waits, begins the
    /// second batch at once instead of waiting for the first to end.
    #[tokio::test]
    async fn a_request_joining_after_go_begins_the_next_batch() {
        let q: FlatQueues<u8, u32, u32> = FlatQueues::default();
        let a = q.join(&1, 1, 9, "t").unwrap();
        let second_began = tokio::sync::Notify::new();
        let late = std::sync::Mutex::new(None);
        let decide = |items: Vec<u32>, go: super::Go| {
            let (q, second_began, late) = (&q, &second_began, &late);
            async move {
                if items == [1] {
                    let _ = go.send(());
                    *late.lock().unwrap() = Some(q.join(&1, 2, 9, "t").unwrap());
                    second_began.notified().await;
                } else {
                    second_began.notify_one();
                }
                items.iter().map(|x| Ok(x * 10)).collect()
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), q.run((&1, "test"), (1, 2), decide))
            .await
            .expect("the late request's batch began while the first ran");
        let b = late.lock().unwrap().take().unwrap();
        assert!(!b.start, "it joined the running task");
        assert_eq!((a.answer("t").await.unwrap(), b.answer("t").await.unwrap()), (10, 20));
    }
}
