//! Connections that try to hold the server: sockets that send nothing, part of the HTTP/2
//! preface, the whole preface and then silence, request bodies trickled one byte and then
//! nothing, and one peer opening many connections. Each attack ends with the server answering
//! another client at once, and the attacking sockets closed by the server within their bound.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Kind, TestServer};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// A server with small bounds: 8 slots, a 300 ms body timeout, 4 streams per HTTP/2
/// connection; `idle_ms` idle timeout, `per_peer` connections per address.
async fn server(idle_ms: u64, per_peer: u32) -> TestServer {
    common::start_with(Kind::Sqlite, |c| {
        c.http.max_concurrent_requests = 8;
        c.http.idle_timeout_ms = idle_ms;
        c.http.body_read_timeout_ms = 300;
        c.http.max_streams_per_connection = 4;
        c.http.max_connections_per_peer = per_peer;
    })
    .await
}

fn addr(ts: &TestServer) -> String {
    ts.url.trim_start_matches("http://").to_string()
}

/// `/healthz` answers 200 on a fresh connection at once: well before any of the attack's
/// timeouts would have freed anything (2 s, for a loaded machine).
async fn answers_at_once(ts: &TestServer, what: &str) {
    let client = reqwest::Client::new();
    let resp = tokio::time::timeout(Duration::from_secs(2), client.get(format!("{}/healthz", ts.url)).send())
        .await
        .unwrap_or_else(|_| panic!("{what}: /healthz did not answer within 2 s"))
        .unwrap();
    assert_eq!(resp.status(), 200, "{what}");
}

/// Read until the server closes the socket; what it sent. Fails after `within`.
async fn closed_within(mut s: TcpStream, within: Duration, what: &str) -> Vec<u8> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "{what}: still open after {within:?}");
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn silent_and_preface_only_connections_are_dropped() {
    let ts = server(300, 0).await;
    for (what, sent) in [
        ("nothing", &b""[..]),
        ("16 bytes of the preface", &PREFACE[..16]),
        ("the whole preface", PREFACE),
    ] {
        let mut socks = Vec::new();
        for _ in 0..20 {
            let mut s = TcpStream::connect(addr(&ts)).await.unwrap();
            s.write_all(sent).await.unwrap();
            socks.push(s);
        }
        answers_at_once(&ts, what).await;
        for s in socks {
            closed_within(s, Duration::from_secs(3), what).await;
        }
    }
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn trickled_bodies_hold_no_slot() {
    let ts = server(300, 0).await;
    let mut socks = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(addr(&ts)).await.unwrap();
        let head = "POST /v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{";
        s.write_all(head.as_bytes()).await.unwrap();
        socks.push(s);
    }
    // Eight slots, eight bodies waiting: the server still answers.
    answers_at_once(&ts, "8 trickled bodies").await;
    for s in socks {
        let got = closed_within(s, Duration::from_secs(3), "a trickled body").await;
        let text = String::from_utf8_lossy(&got);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("request_timeout"), "{text}");
    }
    let (s, _) = ts.get("/v1/skus?limit=10").await;
    assert_eq!(s, 200);
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http2_streams_per_connection_are_bounded() {
    let ts = server(300, 0).await;
    let mut s = TcpStream::connect(addr(&ts)).await.unwrap();
    s.write_all(PREFACE).await.unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap(); // an empty SETTINGS frame
                                                              // The server's first frame is its SETTINGS: MAX_CONCURRENT_STREAMS (0x3) is the bound.
    let mut head = [0u8; 9];
    s.read_exact(&mut head).await.unwrap();
    assert_eq!(head[3], 4, "a SETTINGS frame first");
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let mut payload = vec![0u8; len];
    s.read_exact(&mut payload).await.unwrap();
    let max = payload
        .chunks(6)
        .find(|e| u16::from_be_bytes([e[0], e[1]]) == 3)
        .map(|e| u32::from_be_bytes([e[2], e[3], e[4], e[5]]));
    assert_eq!(max, Some(4), "SETTINGS {payload:?}");
    answers_at_once(&ts, "an HTTP/2 connection open").await;
    drop(s);
    ts.finish().await;
}

/// A connection that served one `/healthz` and stays open, idle (keep-alive).
async fn idle_conn(ts: &TestServer) -> TcpStream {
    let mut s = TcpStream::connect(addr(ts)).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !got.ends_with(b"}") {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "closed before answering");
        got.extend_from_slice(&buf[..n]);
    }
    s
}

/// A connection serving a request for a while: a job claim waiting up to 20 s.
async fn busy_conn(ts: &TestServer) -> TcpStream {
    let mut s = TcpStream::connect(addr(ts)).await.unwrap();
    let body = r#"{"wait_ms": 20000}"#;
    let head = format!(
        "POST /v1/queues/hold/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s
}

/// At a bound held by connections that serve requests, a new one is closed at once; held by
/// idle ones (kept alive, or never used), the oldest idle one is shed and the new client is
/// served at once. Per peer (`max_connections_per_peer`) and in all (`max_connections`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn at_a_bound_idle_connections_make_room_and_busy_ones_stay() {
    for (per_peer, total) in [(4, 0), (0, 4)] {
        let ts = common::start_with(Kind::Sqlite, |c| {
            c.http.idle_timeout_ms = 60_000;
            c.http.max_connections_per_peer = per_peer;
            c.http.max_connections = total;
        })
        .await;
        let what = format!("per peer {per_peer}, in all {total}");
        let mut busy = Vec::new();
        for _ in 0..4 {
            busy.push(busy_conn(&ts).await);
        }
        tokio::time::sleep(Duration::from_millis(200)).await; // the claims are being served
        let fifth = TcpStream::connect(addr(&ts)).await.unwrap();
        let got = closed_within(
            fifth,
            Duration::from_secs(2),
            &format!("{what}: a fifth beside four busy"),
        )
        .await;
        assert!(got.is_empty(), "{what}");
        drop(busy);
        // Places freed once the server sees the closes; then four idle connections hold them.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut idle = Vec::new();
        for _ in 0..4 {
            idle.push(idle_conn(&ts).await);
        }
        // Idle for the second a connection must be left alone before it is shed.
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        answers_at_once(&ts, &format!("{what}: beside four idle")).await;
        // The oldest idle one made room: the server closed it.
        let oldest = idle.remove(0);
        closed_within(oldest, Duration::from_secs(2), &format!("{what}: the oldest idle")).await;
        ts.finish().await;
    }
}

/// Read `r` until the server closes it; fails after `within`.
async fn read_closed_within(mut r: impl tokio::io::AsyncRead + Unpin, within: Duration, what: &str) {
    let read = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    assert!(read.is_ok(), "{what}: still open after {within:?}");
}

/// Bytes alone keep no connection: an HTTP/2 client that sends a PING every 100 ms (which the
/// server answers) and one that trickles the preface a byte every 150 ms are both closed once
/// the idle timeout (300 ms) has passed with no request, while they are still sending.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pings_and_trickles_keep_nothing_open() {
    let ts = server(300, 0).await;
    let settings = [0u8, 0, 0, 0x4, 0, 0, 0, 0, 0];
    let ping = [0u8, 0, 8, 0x6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    for what in ["PINGs", "a trickled preface"] {
        let (r, mut w) = TcpStream::connect(addr(&ts)).await.unwrap().into_split();
        let pinging = what == "PINGs";
        let writer = tokio::spawn(async move {
            if pinging {
                w.write_all(PREFACE).await?;
                w.write_all(&settings).await?;
            }
            if pinging {
                for _ in 0..100 {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    w.write_all(&ping).await?;
                }
            } else {
                // 23 of its 24 bytes, one every 150 ms: still arriving after the 3 s below.
                for b in &PREFACE[..23] {
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    w.write_all(std::slice::from_ref(b)).await?;
                }
            }
            Ok::<_, std::io::Error>(())
        });
        let started = Instant::now();
        read_closed_within(r, Duration::from_secs(3), what).await;
        assert!(!writer.is_finished(), "{what}: closed only after it stopped sending");
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "{what}: closed before its idle timeout"
        );
        writer.abort();
        answers_at_once(&ts, what).await;
    }
    ts.finish().await;
}
