//! LISTEN/NOTIFY for the job queue: an enqueue runs `pg_notify('allot_jobs', tenant/queue)` in
//! its transaction (delivered at commit, PostgreSQL docs, NOTIFY); one dedicated connection per
//! store LISTENs and wakes the claims waiting in this process on that queue of that tenant only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// The payload of a queue's notification, and its waiters' key: `tenant/queue` (names hold no
/// `/`, so the pair is unambiguous).
pub(crate) fn channel_key(tenant: &str, queue: &str) -> String {
    format!("{tenant}/{queue}")
}

/// Notifications read ahead of the waker; beyond it one is dropped (waiters also poll every
/// `job_poll_interval_ms`, so a dropped wake-up costs at most that).
const SIGNAL_BUFFER: usize = 1024;

/// Wakes waiting claims when an enqueue NOTIFYs `allot_jobs` with its queue's name: one
/// dedicated connection per store, started on the first wait, reconnecting after errors.
/// Waiters register per queue, so an enqueue wakes the claims of its queue and no others.
pub(crate) struct JobSignal {
    url: String,
    started: std::sync::atomic::AtomicBool,
    /// One `Notify` per queue with waiters; an entry leaves with its last waiter.
    queues: Mutex<HashMap<String, Arc<Notify>>>,
}

impl JobSignal {
    pub(crate) fn new(url: String) -> Self {
        JobSignal {
            url,
            started: std::sync::atomic::AtomicBool::new(false),
            queues: Mutex::new(HashMap::new()),
        }
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
                let url = sig.url.clone();
                drop(sig);
                if let Ok((client, mut conn)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
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
