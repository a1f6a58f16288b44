//! What a connection may hold: an idle watchdog, and bounds on connections per peer and in
//! all.
//!
//! hyper has no idle timeout of its own (hyperium/hyper#1628): a connection that sends
//! nothing, part of the HTTP/2 preface, or the whole preface and then silence, waits in
//! hyper-util's protocol sniffing or in h2's handshake forever, and the header-read timeout
//! starts only once an HTTP/1 request begins. So every connection runs under a watchdog that
//! drops it once no request of it has been served for `idle_timeout_ms`: counted from the
//! accept or from the end of its last answer's body, and never while a request is served (a
//! long-poll, a large answer read slowly). Bytes alone do not count, so HTTP/2 PINGs or a
//! preface trickled a byte at a time keep nothing open (as nginx's keepalive and HTTP/2 idle
//! timeouts, which PINGs do not reset).

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A connection's activity: when it was accepted or last finished serving a request, and how
/// many of its requests are being served.
#[derive(Debug)]
pub struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    /// A connection accepted now.
    pub fn new() -> Arc<Self> {
        Arc::new(Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        })
    }

    fn touch(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    /// A request of this connection is being served until the guard is dropped.
    pub fn enter(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self.clone())
    }

    /// When the connection may be dropped as idle: `None` while a request is served.
    fn idle_deadline(&self, idle: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        Some(self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed)) + idle)
    }
}

/// One request in flight (see [`Activity::enter`]).
pub struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body that keeps its request in flight until the body is sent or dropped.
pub struct Guarded<B> {
    inner: B,
    _in_flight: InFlight,
}

impl<B> Guarded<B> {
    /// `inner`, keeping `in_flight` until it ends.
    pub fn new(inner: B, in_flight: InFlight) -> Self {
        Guarded {
            inner,
            _in_flight: in_flight,
        }
    }
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for Guarded<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }
    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }
    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Run `conn` until it ends, or until it has been idle (no request served) for `idle`: then it
/// is dropped, which closes the socket.
pub async fn watchdog<F: std::future::Future>(conn: F, activity: Arc<Activity>, idle: Duration) {
    tokio::pin!(conn);
    loop {
        let deadline = activity.idle_deadline(idle).unwrap_or_else(|| Instant::now() + idle);
        tokio::select! {
            _ = &mut conn => return,
            _ = tokio::time::sleep_until(deadline.into()) => {
                if activity.idle_deadline(idle).is_some_and(|d| d <= Instant::now()) {
                    return;
                }
            }
        }
    }
}

/// Open connections per peer address and in all, bounded by `max_connections_per_peer` and
/// `max_connections`.
#[derive(Debug, Clone, Default)]
pub struct Peers {
    open: Arc<Mutex<Open>>,
}

#[derive(Debug, Default)]
struct Open {
    by_peer: HashMap<IpAddr, u32>,
    total: u32,
}

/// One admitted connection of a peer; dropping it frees its place.
pub struct PeerGuard {
    peers: Peers,
    ip: IpAddr,
}

impl Peers {
    /// Admit a connection of `ip` if it has fewer than `per_peer` open and all peers fewer than
    /// `total` (0: no bound).
    pub fn admit(&self, ip: IpAddr, per_peer: u32, total: u32) -> Option<PeerGuard> {
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if total > 0 && open.total >= total {
            return None;
        }
        let n = open.by_peer.entry(ip).or_insert(0);
        if per_peer > 0 && *n >= per_peer {
            return None;
        }
        *n += 1;
        open.total += 1;
        Some(PeerGuard {
            peers: self.clone(),
            ip,
        })
    }
}

impl Drop for PeerGuard {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total -= 1;
        if let Some(n) = open.by_peer.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.by_peer.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_are_bounded_and_freed() {
        let p = Peers::default();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let a = p.admit(ip, 2, 0).unwrap();
        let _b = p.admit(ip, 2, 0).unwrap();
        assert!(p.admit(ip, 2, 0).is_none());
        assert!(
            p.admit("::ffff:127.0.0.1".parse().unwrap(), 2, 0).is_none(),
            "mapped v4 is the same peer"
        );
        let c = p.admit("10.0.0.1".parse().unwrap(), 2, 0).unwrap();
        assert!(p.admit("10.0.0.2".parse().unwrap(), 2, 3).is_none(), "3 open in all");
        drop(a);
        assert!(p.admit(ip, 2, 3).is_some());
        assert!(p.admit(ip, 0, 0).is_some(), "0 is no bound");
        drop(c);
    }

    #[test]
    fn in_flight_requests_keep_a_connection() {
        let a = Activity::new();
        let idle = Duration::from_millis(10);
        assert!(a.idle_deadline(idle).is_some());
        let g = a.enter();
        assert!(a.idle_deadline(idle).is_none());
        drop(g);
        assert!(a.idle_deadline(idle).is_some());
    }
}
