//! LISTEN/NOTIFY for the job queue: an enqueue runs `pg_notify('allot_jobs', queue)` in its
//! transaction (delivered at commit, PostgreSQL docs, NOTIFY); one dedicated connection per
//! store LISTENs and wakes the claims waiting in this process.

/// Wakes waiting claims when an enqueue NOTIFYs `allot_jobs`: one dedicated connection per
/// store, started on the first wait, reconnecting after errors.
pub(crate) struct JobSignal {
    url: String,
    started: std::sync::atomic::AtomicBool,
    pub(crate) notify: tokio::sync::Notify,
}

impl JobSignal {
    pub(crate) fn new(url: String) -> Self {
        JobSignal {
            url,
            started: std::sync::atomic::AtomicBool::new(false),
            notify: tokio::sync::Notify::new(),
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
                    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                    let pump = tokio::spawn(async move {
                        let mut messages = futures::stream::poll_fn(move |cx| conn.poll_message(cx));
                        use futures::StreamExt;
                        while let Some(Ok(m)) = messages.next().await {
                            if let tokio_postgres::AsyncMessage::Notification(_) = m {
                                let _ = tx.send(());
                            }
                        }
                    });
                    if client.batch_execute("LISTEN allot_jobs").await.is_ok() {
                        while rx.recv().await.is_some() {
                            match weak.upgrade() {
                                Some(sig) => sig.notify.notify_waiters(),
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
