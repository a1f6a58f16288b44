//! A future's output when it has one at its first poll: a wait that usually ends at once (a
//! body that came with its head, a free place in a gate) makes its bound only once it turns
//! out to wait. A `tokio::time::timeout` made up front reads the clock and the runtime's
//! handle for its deadline and makes the waiting future larger (copied at each await above
//! it), even when it never registers its timer (`allot bench cost`).

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// Poll `fut` once on the calling task: `Some(output)` when it is ready, else `None` (its
/// waker registered, as any poll leaves it; poll it again, bounded, to wait).
pub async fn at_once<F: Future + ?Sized>(mut fut: Pin<&mut F>) -> Option<F::Output> {
    std::future::poll_fn(|cx| {
        Poll::Ready(match fut.as_mut().poll(cx) {
            Poll::Ready(v) => Some(v),
            Poll::Pending => None,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::at_once;

    /// A ready future gives its output; one that waits gives `None` and still finishes.
    #[test]
    fn ready_at_once_or_not() {
        let ready = std::pin::pin!(async { 7 });
        assert_eq!(block_on(at_once(ready)), Some(7));
        let mut yielded = false;
        let mut waits = std::pin::pin!(std::future::poll_fn(move |cx| {
            if yielded {
                std::task::Poll::Ready(8)
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            }
        }));
        assert_eq!(block_on(at_once(waits.as_mut())), None);
        assert_eq!(block_on(waits), 8);
    }

    /// Run `fut` to its end on this thread (a waker that does nothing: the futures here wake
    /// themselves at once).
    fn block_on<F: std::future::Future>(fut: F) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }
}
