//! LISTEN/NOTIFY for the job queue and the change feed, on one channel, `allot_jobs`: an
//! enqueue runs `pg_notify('allot_jobs', tenant/queue)` in its transaction, and a sequencer
//! round that numbered events `pg_notify('allot_jobs', 'events')` (delivered at commit,
//! PostgreSQL docs, NOTIFY). One dedicated connection per store LISTENs and wakes the claims
//! waiting in this process on that queue of that tenant only, or every waiting feed reader of
//! this process, whichever allot instance's sequencer ran the round.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// The payload of a queue's notification, and its waiters' key: `tenant/queue` (names hold no
/// `/`, so the pair is unambiguous).
pub(crate) fn channel_key(tenant: &str, queue: &str) -> String {
    format!("{tenant}/{queue}")
}

/// The payload of a sequencer round's notification (it holds no `/`, so no queue's key is it).
pub(crate) const FEED_PAYLOAD: &str = "events";

/// Notifications read ahead of the waker; beyond it one is dropped (waiters also poll every
/// `job_poll_interval_ms`, so a dropped wake-up costs at most that).
const SIGNAL_BUFFER: usize = 1024;

/// Wakes waiting claims when an enqueue NOTIFYs `allot_jobs` with its queue's name, and
/// waiting feed readers on [`FEED_PAYLOAD`]: one dedicated connection per store, started on the
/// first wait, reconnecting after errors. Waiters register per queue, so an enqueue wakes the
/// claims of its queue and no others.
pub(crate) struct Listener {
    target: crate::engine::connect::PgTarget,
    started: std::sync::atomic::AtomicBool,
    /// One `Notify` per queue with waiters; an entry leaves with its last waiter.
    queues: Mutex<HashMap<String, Arc<Notify>>>,
    /// The feed's readers (any tenant: a round numbers events of many).
    feed: Notify,
}

impl Listener {
    pub(crate) fn new(target: crate::engine::connect::PgTarget) -> Self {
        Listener {
            target,
            started: std::sync::atomic::AtomicBool::new(false),
            queues: Mutex::new(HashMap::new()),
            feed: Notify::new(),
        }
    }

    /// Wait at most `wait` for a sequencer round that numbered events (any instance's).
    pub(crate) async fn wait_for_feed(self: &Arc<Self>, wait: std::time::Duration) {
        self.start();
        let _ = tokio::time::timeout(wait, self.feed.notified()).await;
    }

    /// Wake this process's feed readers at once (the round ran here; the notification follows).
    pub(crate) fn wake_feed(&self) {
        self.feed.notify_waiters();
    }

    /// Wait at most `wait` for an enqueue on `queue`.
    pub(crate) async fn wait(&self, queue: &str, wait: std::time::Duration) {
        let notify = {
            let mut q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            q.entry(queue.to_string()).or_default().clone()
        };
        let _ = tokio::time::timeout(wait, notify.notified()).await;
        let mut q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        // Two references left (the map's and ours): no one else waits on this queue.
        if Arc::strong_count(&notify) == 2 {
            q.remove(queue);
        }
    }

    fn wake(&self, queue: &str) {
        if queue == FEED_PAYLOAD {
            return self.wake_feed();
        }
        let q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = q.get(queue) {
            n.notify_waiters();
        }
    }

    pub(crate) fn start(self: &std::sync::Arc<Self>) {
        if self.started.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return;
        }
        let weak = std::sync::Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let Some(sig) = weak.upgrade() else { return };
                let target = sig.target.clone();
                drop(sig);
                if let Ok((client, mut conn)) = target.connect().await {
                    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(SIGNAL_BUFFER);
                    let pump = tokio::spawn(async move {
                        let mut messages = futures::stream::poll_fn(move |cx| conn.poll_message(cx));
                        use futures::StreamExt;
                        while let Some(Ok(m)) = messages.next().await {
                            if let tokio_postgres::AsyncMessage::Notification(n) = m {
                                let _ = tx.try_send(n.payload().to_string());
                            }
                        }
                    });
                    if client.batch_execute("LISTEN allot_jobs").await.is_ok() {
                        while let Some(queue) = rx.recv().await {
                            match weak.upgrade() {
                                Some(sig) => sig.wake(&queue),
                                None => return,
                            }
                        }
                    }
                    pump.abort();
                }
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        });
    }
}
