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
//!
//! At a connection bound (a peer's, or all connections'), a new connection is not simply
//! refused: the oldest idle connection under that bound (accepted or kept alive, no request
//! being served) is shed to make room, so idle keep-alive connections, or sockets that never
//! send a request, cannot lock new clients out until their idle timeout (as nginx's
//! `reset_timedout_connection` and HAProxy's idle-connection purging do for their own pools).
//! Only when every connection under the bound is serving a request is the new one closed.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

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

    /// How long the connection has been idle: `None` while a request is served.
    fn idle_for(&self) -> Option<Duration> {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let last = self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
        Some(last.elapsed())
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

/// How a connection is told to close to make room (see [`Peers::admit`]).
#[derive(Debug, Clone, Default)]
pub struct Shed {
    notify: Arc<Notify>,
    shedding: Arc<AtomicBool>,
}

/// Run `conn` until it ends, until it has been idle (no request served) for `idle`, or until
/// it is shed while idle (see [`Peers::admit`]): then it is dropped, which closes the socket.
pub async fn watchdog<F: std::future::Future>(conn: F, activity: Arc<Activity>, idle: Duration, shed: Shed) {
    tokio::pin!(conn);
    loop {
        let deadline = activity.idle_deadline(idle).unwrap_or_else(|| Instant::now() + idle);
        tokio::select! {
            _ = &mut conn => return,
            _ = shed.notify.notified() => {
                // Chosen while idle; a request that began since keeps it, and it counts again.
                if activity.idle_deadline(idle).is_some() {
                    return;
                }
                shed.shedding.store(false, Ordering::Relaxed);
            }
            _ = tokio::time::sleep_until(deadline.into()) => {
                if activity.idle_deadline(idle).is_some_and(|d| d <= Instant::now()) {
                    return;
                }
            }
        }
    }
}

/// Open connections per peer address and in all, bounded by `max_connections_per_peer` and
/// `max_connections`, each with its activity, in the order they were accepted.
#[derive(Debug, Clone)]
pub struct Peers {
    open: Arc<Mutex<Open>>,
    /// How long a connection must be idle to be shed ([`SHED_MIN_IDLE`]).
    min_idle: Duration,
}

impl Default for Peers {
    fn default() -> Self {
        Peers::new(SHED_MIN_IDLE)
    }
}

#[derive(Debug)]
struct Entry {
    ip: IpAddr,
    activity: Arc<Activity>,
    shed: Arc<Notify>,
    /// Told to close (not shed twice, not counted as staying); its [`watchdog`] clears it
    /// when a request had begun and the connection stays.
    shedding: Arc<AtomicBool>,
}

#[derive(Debug, Default)]
struct Open {
    by_peer: HashMap<IpAddr, u32>,
    total: u32,
    /// Every open connection by its accept sequence (oldest first).
    conns: BTreeMap<u64, Entry>,
    next: u64,
}

/// How long a connection must have been idle to be shed: a keep-alive connection its client
/// is about to reuse is not closed under the request it is sending (the race every server
/// that closes idle connections has), only one left alone for a while.
pub const SHED_MIN_IDLE: Duration = Duration::from_secs(1);

impl Open {
    /// Tell the oldest connection idle for [`SHED_MIN_IDLE`] or more (of `ip` only, when
    /// given) that is not already closing to close; whether there was one.
    fn shed_oldest_idle(&mut self, ip: Option<IpAddr>, min_idle: Duration) -> bool {
        let found = self.conns.values_mut().find(|e| {
            !e.shedding.load(Ordering::Relaxed)
                && ip.is_none_or(|ip| e.ip == ip)
                && e.activity.idle_for().is_some_and(|d| d >= min_idle)
        });
        let Some(e) = found else { return false };
        e.shedding.store(true, Ordering::Relaxed);
        e.shed.notify_one();
        true
    }

    /// Connections under a bound that are not already closing: of `ip`, or in all.
    fn staying(&self, ip: Option<IpAddr>) -> u32 {
        let closing = self
            .conns
            .values()
            .filter(|e| e.shedding.load(Ordering::Relaxed) && ip.is_none_or(|ip| e.ip == ip))
            .count() as u32;
        let open = match ip {
            Some(ip) => self.by_peer.get(&ip).copied().unwrap_or(0),
            None => self.total,
        };
        open.saturating_sub(closing)
    }

    /// Room under `bound` (0: none) for one more of `ip` (or of anyone): there is, or the
    /// oldest idle one was told to close.
    fn make_room(&mut self, ip: Option<IpAddr>, bound: u32, min_idle: Duration) -> bool {
        let open = match ip {
            Some(ip) => self.by_peer.get(&ip).copied().unwrap_or(0),
            None => self.total,
        };
        // Below the bound by the counts alone: no scan of the connections on the way.
        bound == 0 || open < bound || self.staying(ip) < bound || self.shed_oldest_idle(ip, min_idle)
    }
}

/// One admitted connection; dropping it frees its place.
pub struct PeerGuard {
    peers: Peers,
    seq: u64,
    ip: IpAddr,
}

impl Peers {
    /// No connection open yet; connections idle for `min_idle` or more may be shed.
    pub fn new(min_idle: Duration) -> Self {
        Peers {
            open: Default::default(),
            min_idle,
        }
    }

    /// Admit a connection of `ip` whose activity is `activity`, making room where a bound is
    /// reached: at `per_peer` connections of `ip`, or `total` in all (0: no bound), the
    /// oldest idle one under that bound is shed. `None` when every connection under the
    /// bound is serving a request. The notifier the connection's [`watchdog`] waits on to
    /// be shed comes with the guard.
    pub fn admit(
        &self,
        ip: IpAddr,
        (per_peer, total): (u32, u32),
        activity: &Arc<Activity>,
    ) -> Option<(PeerGuard, Shed)> {
        let ip = ip.to_canonical();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if !open.make_room(Some(ip), per_peer, self.min_idle) || !open.make_room(None, total, self.min_idle) {
            return None;
        }
        *open.by_peer.entry(ip).or_insert(0) += 1;
        open.total += 1;
        let (seq, shed) = (open.next, Shed::default());
        open.next += 1;
        let entry = Entry {
            ip,
            activity: activity.clone(),
            shed: shed.notify.clone(),
            shedding: shed.shedding.clone(),
        };
        open.conns.insert(seq, entry);
        let guard = PeerGuard {
            peers: self.clone(),
            seq,
            ip,
        };
        Some((guard, shed))
    }
}

impl Drop for PeerGuard {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total -= 1;
        open.conns.remove(&self.seq);
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
    fn peers_are_bounded_idle_ones_shed_and_freed() {
        let p = Peers::new(Duration::ZERO);
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let busy = |n: usize| {
            (0..n)
                .map(|_| {
                    let a = Activity::new();
                    let g = a.enter();
                    (a, g)
                })
                .collect::<Vec<_>>()
        };
        let acts = busy(2);
        let a = p.admit(ip, (2, 0), &acts[0].0).unwrap();
        let _b = p.admit(ip, (2, 0), &acts[1].0).unwrap();
        let third = Activity::new();
        assert!(p.admit(ip, (2, 0), &third).is_none(), "both serving: no room");
        assert!(
            p.admit("::ffff:127.0.0.1".parse().unwrap(), (2, 0), &third).is_none(),
            "mapped v4 is the same peer"
        );
        let c_act = Activity::new();
        let (c, c_shed) = p.admit("10.0.0.1".parse().unwrap(), (2, 0), &c_act).unwrap();
        // 3 open in all, the idle one is 10.0.0.1's: shed for a new peer at the total bound.
        let d_act = Activity::new();
        let d = p.admit("10.0.0.2".parse().unwrap(), (2, 3), &d_act);
        assert!(d.is_some(), "the oldest idle connection makes room");
        assert!(
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .unwrap()
                .block_on(async {
                    tokio::time::timeout(Duration::from_secs(1), c_shed.notify.notified())
                        .await
                        .is_ok()
                }),
            "the idle connection was told to close"
        );
        // 10.0.0.1's is closing and no longer counts: 10.0.0.2's is the idle one shed next.
        assert!(p.admit("10.0.0.3".parse().unwrap(), (2, 3), &Activity::new()).is_some());
        drop((acts, a, c, d));
        assert!(
            p.admit(ip, (2, 3), &Activity::new()).is_some(),
            "freed places admit again"
        );
        assert!(p.admit(ip, (0, 0), &Activity::new()).is_some(), "0 is no bound");
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
