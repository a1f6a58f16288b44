//! What a connection may hold: an idle watchdog and a bound on connections per peer.
//!
//! hyper has no idle timeout of its own (hyperium/hyper#1628): a connection that sends
//! nothing, part of the HTTP/2 preface, or the whole preface and then silence, waits in
//! hyper-util's protocol sniffing or in h2's handshake forever, and the header-read timeout
//! starts only once an HTTP/1 request begins. So every connection runs under a watchdog that
//! drops it once it has moved no byte for `idle_timeout_ms` while no request of it is being
//! served (a long-poll in flight keeps its connection). The same pattern as connect-rust's
//! and pingora's idle timeouts.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection's activity: when it last moved a byte, and how many of its requests are being
/// served.
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

/// An IO that records every byte read or written in its [`Activity`].
pub struct Watched<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T> Watched<T> {
    /// `inner`, watched.
    pub fn new(inner: T, activity: Arc<Activity>) -> Self {
        Watched { inner, activity }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        r
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Run `conn` until it ends, or until it has been idle (no byte moved, no request served) for
/// `idle`: then it is dropped, which closes the socket.
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

/// Open connections per peer address, bounded by `max_connections_per_peer`.
#[derive(Debug, Clone, Default)]
pub struct Peers {
    open: Arc<Mutex<HashMap<IpAddr, u32>>>,
}

/// One admitted connection of a peer; dropping it frees its place.
pub struct PeerGuard {
    peers: Peers,
    ip: IpAddr,
}

impl Peers {
    /// Admit a connection of `ip` if it has fewer than `max` open (`max == 0`: no bound).
    pub fn admit(&self, ip: IpAddr, max: u32) -> Option<PeerGuard> {
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(ip).or_insert(0);
        if max > 0 && *n >= max {
            return None;
        }
        *n += 1;
        Some(PeerGuard {
            peers: self.clone(),
            ip,
        })
    }
}

impl Drop for PeerGuard {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
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
        let a = p.admit(ip, 2).unwrap();
        let _b = p.admit(ip, 2).unwrap();
        assert!(p.admit(ip, 2).is_none());
        assert!(
            p.admit("::ffff:127.0.0.1".parse().unwrap(), 2).is_none(),
            "mapped v4 is the same peer"
        );
        assert!(p.admit("10.0.0.1".parse().unwrap(), 2).is_some());
        drop(a);
        assert!(p.admit(ip, 2).is_some());
        assert!(p.admit(ip, 0).is_some(), "0 is no bound");
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
