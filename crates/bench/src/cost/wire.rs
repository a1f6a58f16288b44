//! A counting proxy between the server and PostgreSQL: every byte passes unchanged, and the
//! client side of the frontend/backend protocol is read as it goes by (PostgreSQL docs,
//! "Frontend/Backend Protocol", "Message Formats"): statements are its `Execute` (`E`) and
//! simple `Query` (`Q`) messages, round trips the times the client speaks again after the
//! server answered. What a driver sends is counted whatever the build, so an older build
//! is counted the same way.

use crate::error::BenchError;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What went through the proxy since it started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WireCounts {
    /// `Execute` and simple `Query` messages.
    pub statements: u64,
    /// Flights of client messages, each after an answer (or first on its connection).
    pub round_trips: u64,
    /// Bytes the client sent.
    pub bytes_to_server: u64,
}

impl WireCounts {
    /// What happened between `before` and `self`.
    pub fn since(self, before: WireCounts) -> WireCounts {
        WireCounts {
            statements: self.statements - before.statements,
            round_trips: self.round_trips - before.round_trips,
            bytes_to_server: self.bytes_to_server - before.bytes_to_server,
        }
    }
}

#[derive(Default)]
struct Counters {
    statements: AtomicU64,
    round_trips: AtomicU64,
    bytes_to_server: AtomicU64,
}

/// A running proxy; it stops when dropped.
pub struct CountingProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    counters: Arc<Counters>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    /// Listen on a free loopback port and forward every connection to `127.0.0.1:upstream`.
    pub async fn start(upstream: u16) -> Result<CountingProxy, BenchError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| BenchError::Setup(format!("bind the counting proxy: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| BenchError::Setup(e.to_string()))?
            .port();
        let counters = Arc::new(Counters::default());
        let shared = counters.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let counters = shared.clone();
                tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await {
                        relay(client, server, counters).await;
                    }
                });
            }
        });
        Ok(CountingProxy { port, counters, task })
    }

    /// The counts so far.
    pub fn counts(&self) -> WireCounts {
        WireCounts {
            statements: self.counters.statements.load(Ordering::SeqCst),
            round_trips: self.counters.round_trips.load(Ordering::SeqCst),
            bytes_to_server: self.counters.bytes_to_server.load(Ordering::SeqCst),
        }
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Size of one read of either direction, bytes.
const CHUNK: usize = 16 * 1024;

/// Pump both directions until either side closes.
async fn relay(client: TcpStream, server: TcpStream, counters: Arc<Counters>) {
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let (mut client_rx, mut client_tx) = client.into_split();
    let (mut server_rx, mut server_tx) = server.into_split();
    // Whether the server spoke since the client last did: the client's next bytes start a
    // new round trip.
    let answered = Arc::new(AtomicBool::new(true));
    let heard = answered.clone();
    let up = async move {
        let (mut buf, mut frames) = (vec![0u8; CHUNK], Frames::default());
        loop {
            let n = match client_rx.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if answered.swap(false, Ordering::SeqCst) {
                counters.round_trips.fetch_add(1, Ordering::SeqCst);
            }
            counters.bytes_to_server.fetch_add(n as u64, Ordering::SeqCst);
            counters.statements.fetch_add(frames.feed(&buf[..n]), Ordering::SeqCst);
            if server_tx.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    };
    let down = async move {
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match server_rx.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            heard.store(true, Ordering::SeqCst);
            if client_tx.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    };
    tokio::select! {
        _ = up => {},
        _ = down => {},
    }
}

/// The client's side of the protocol, read across reads: untyped messages (a length, then
/// the body: `SSLRequest`, `GSSENCRequest`, `StartupMessage`) until the startup message, then
/// typed ones (a type byte, a length that counts itself, the body).
#[derive(Default)]
struct Frames {
    started: bool,
    /// Bytes of the current message's header seen so far.
    header: Vec<u8>,
    /// Bytes of the current message's body still to skip.
    skip: usize,
}

/// `SSLRequest`'s and `GSSENCRequest`'s codes: after them the client sends another untyped
/// message.
const NEGOTIATION_CODES: [u32; 2] = [80_877_103, 80_877_104];

impl Frames {
    /// Read `bytes`; the statements among the messages that started in them.
    fn feed(&mut self, mut bytes: &[u8]) -> u64 {
        let mut statements = 0;
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            let header_len = if self.started { 5 } else { 8 };
            let n = (header_len - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.header.len() < header_len {
                break;
            }
            statements += self.begin_message();
        }
        statements
    }

    /// A whole header is in: count the message and skip its body.
    fn begin_message(&mut self) -> u64 {
        let h = std::mem::take(&mut self.header);
        let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        if self.started {
            self.skip = (be(&h[1..5]) as usize).saturating_sub(4);
            return u64::from(matches!(h[0], b'E' | b'Q'));
        }
        // Untyped: the length counts itself; the code follows it.
        self.skip = (be(&h[0..4]) as usize).saturating_sub(8);
        self.started = !NEGOTIATION_CODES.contains(&be(&h[4..8]));
        0
    }
}

#[cfg(test)]
mod tests {
    use super::Frames;

    fn typed(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![kind];
        m.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    /// An SSL request, a startup message, then Parse/Bind/Execute/Sync and a simple query,
    /// fed one byte at a time and all at once: two statements either way.
    #[test]
    fn counts_execute_and_query_across_reads() {
        let mut wire = Vec::new();
        wire.extend_from_slice(&8u32.to_be_bytes());
        wire.extend_from_slice(&80_877_103u32.to_be_bytes());
        let startup = b"\x00\x03\x00\x00user\x00postgres\x00\x00";
        wire.extend_from_slice(&(startup.len() as u32 + 4).to_be_bytes());
        wire.extend_from_slice(startup);
        for (kind, body) in [
            (b'P', &b"\x00SELECT 1\x00\x00\x00"[..]),
            (b'B', b"\x00\x00\x00\x00\x00\x00\x00"),
            (b'E', b"\x00\x00\x00\x00\x00"),
            (b'S', b""),
            (b'Q', b"BEGIN\x00"),
        ] {
            wire.extend(typed(kind, body));
        }
        let mut whole = Frames::default();
        assert_eq!(whole.feed(&wire), 2);
        let mut bytewise = Frames::default();
        assert_eq!(
            wire.iter().map(|b| bytewise.feed(std::slice::from_ref(b))).sum::<u64>(),
            2
        );
    }
}
