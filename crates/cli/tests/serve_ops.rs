//! `allot serve` as an operator runs it: one log line per request in both formats (with the
//! request id, tenant and key id, never the secret), no colour codes in a file, `/livez` and
//! `/readyz`, a shutdown that does not wait out long-polls and logs `stopped`, and a second
//! SIGINT that exits at once. The real binary, on an embedded SQLite file of its own.

#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A running `allot serve`, its stderr lines arriving on `lines`.
struct Served {
    child: Child,
    lines: Receiver<String>,
    url: String,
    seen: Vec<String>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn temp_db() -> String {
    let dir = std::env::temp_dir().join(format!("allot-ops-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite://{}", dir.join("ops.db").display())
}

impl Served {
    fn start(db: &str, extra: &[&str]) -> Served {
        Served::start_logging(db, extra, None)
    }

    /// As [`Served::start`], with `ALLOT_LOG` set to `log` (unset when `None`).
    fn start_logging(db: &str, extra: &[&str], log: Option<&str>) -> Served {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_allot"));
        cmd.env_remove("ALLOT_LOG");
        if let Some(log) = log {
            cmd.env("ALLOT_LOG", log);
        }
        let mut child = cmd
            .args(["serve", "--database-url", db, "--listen", &listen])
            .args(extra)
            .env_remove("ALLOT_CONFIG")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut served = Served {
            child,
            lines,
            url: format!("http://{listen}"),
            seen: Vec::new(),
        };
        served.line_with("allot listening");
        served
    }

    /// The next stderr line containing `part` (within 20 s; a signal, not a sleep).
    fn line_with(&mut self, part: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(part) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    panic!("no line with `{part}`; lines: {:#?}", self.seen)
                }
            }
        }
    }

    fn signal(&self, name: &str) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args([name, &pid]).status().unwrap().success());
    }

    /// The exit code, waiting at most `within`.
    fn exit_code(&mut self, within: Duration) -> Option<i32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("still running after {within:?}; lines: {:#?}", self.seen)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn post(url: &str, body: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut req = reqwest::Client::new().post(url).json(&body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_logs_in_json_and_text_without_secrets() {
    let db = temp_db();
    // By default a quick success is not logged, a refusal is (at info).
    let mut json_server = Served::start(&db, &["--log-format", "json"]);
    let skus = format!("{}/v1/skus", json_server.url);
    let sku = json!({"sku": "LOG-1", "on_hand": 3});
    let (status, _) = post(&skus, sku.clone(), &[("x-request-id", "log-req-0")]).await;
    assert_eq!(status, 201);
    let (status, _) = post(&skus, sku, &[("x-request-id", "log-req-1")]).await;
    assert_eq!(status, 409);
    let line: Value = serde_json::from_str(&json_server.line_with("log-req-1")).unwrap();
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["target"], "allot::request");
    assert_eq!(line["method"], "POST");
    assert_eq!(line["route"], "/v1/skus");
    assert_eq!(line["status"], 409);
    assert!(
        !json_server.seen.join("\n").contains("log-req-0"),
        "a quick success was logged at info"
    );
    assert_eq!(line["tenant"], "default");
    assert!(line["latency_us"].as_u64().is_some(), "{line}");
    assert!(line.get("key_id").is_none(), "an open server has no key: {line}");
    json_server.signal("-INT");
    json_server.line_with("stopped");
    assert_eq!(json_server.exit_code(Duration::from_secs(20)), Some(0));

    // With a key in the database, every /v1 request needs one.
    let out = Command::new(env!("CARGO_BIN_EXE_allot"))
        .args([
            "keys",
            "create",
            "--database-url",
            &db,
            "--tenant",
            "acme",
            "--name",
            "ops",
            "--scopes",
            "admin",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let secret = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let bearer = format!("Bearer {secret}");
    // `allot::request=debug` logs every request.
    let every = Some("info,allot::request=debug");
    let mut json_server = Served::start_logging(&db, &["--log-format", "json"], every);
    let skus = format!("{}/v1/skus", json_server.url);
    let auth = [("authorization", bearer.as_str()), ("x-request-id", "log-req-2")];
    let (status, _) = post(&skus, json!({"sku": "LOG-2", "on_hand": 1}), &auth).await;
    assert_eq!(status, 201);
    let line: Value = serde_json::from_str(&json_server.line_with("log-req-2")).unwrap();
    assert_eq!(line["level"], "DEBUG");
    assert_eq!(line["tenant"], "acme");
    assert!(line["key_id"].as_str().is_some_and(|k| !k.is_empty()), "{line}");
    json_server.signal("-INT");
    json_server.line_with("stopped");
    assert_eq!(json_server.exit_code(Duration::from_secs(20)), Some(0));
    let everything = json_server.seen.join("\n");
    assert!(!everything.contains(&secret), "a secret was logged");
    assert!(!everything.contains("LOG-2"), "a body was logged");

    let mut text_server = Served::start_logging(&db, &[], every);
    let skus = format!("{}/v1/skus", text_server.url);
    let auth = [("authorization", bearer.as_str()), ("x-request-id", "log-req-3")];
    let (status, _) = post(&skus, json!({"sku": "LOG-3", "on_hand": 1}), &auth).await;
    assert_eq!(status, 201);
    let line = text_server.line_with("log-req-3");
    for part in [
        "DEBUG",
        "allot::request",
        "method=\"POST\"",
        "route=\"/v1/skus\"",
        "status=201",
        "tenant=\"acme\"",
    ] {
        assert!(line.contains(part), "`{part}` not in {line}");
    }
    assert!(
        !text_server.seen.join("\n").contains('\u{1b}'),
        "colour codes in a pipe"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn liveness_readiness_and_a_shutdown_that_ends_long_polls() {
    let mut served = Served::start(&temp_db(), &[]);
    let client = reqwest::Client::new();
    let live = client.get(format!("{}/livez", served.url)).send().await.unwrap();
    assert_eq!(live.status().as_u16(), 200);
    let ready = client.get(format!("{}/readyz", served.url)).send().await.unwrap();
    assert_eq!(ready.status().as_u16(), 200);
    let body: Value = ready.json().await.unwrap();
    assert_eq!(body, json!({"status": "ready", "backend": "sqlite", "problems": []}));
    every_metric_has_help(&client, &served.url).await;

    // A claim waiting 30 s and an open event stream: the shutdown must end both at once,
    // not wait them out (the grace is 60 s, the test allows 20).
    let claims = format!("{}/v1/queues/q/claims", served.url);
    let waiting = tokio::spawn(async move { post(&claims, json!({"wait_ms": 30000}), &[]).await });
    metric_reaches(&client, &served.url, "allot_job_claims_waiting 1").await;
    let stream = client
        .get(format!("{}/v1/events/stream", served.url))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status().as_u16(), 200);
    served.signal("-INT");
    let (status, body) = waiting.await.unwrap();
    assert_eq!((status, body), (200, json!({"jobs": []})));
    let _ = stream.bytes().await;
    served.line_with("stopped");
    assert_eq!(served.exit_code(Duration::from_secs(20)), Some(0));
}

/// `/metrics`: every series has `# HELP` (with its unit in the text of the name), and the
/// pool's and the process's samples are there.
async fn every_metric_has_help(client: &reqwest::Client, url: &str) {
    let text = client
        .get(format!("{url}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut typed = 0;
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        let name = line.split_whitespace().nth(2).unwrap();
        assert!(text.contains(&format!("# HELP {name} ")), "no HELP for {name}:\n{text}");
        typed += 1;
    }
    assert!(typed >= 10, "{text}");
    for series in [
        "allot_db_pool_max_connections 1",
        "allot_db_pool_waiting ",
        "allot_http_requests_in_flight ",
        "process_resident_memory_bytes ",
        "process_open_fds ",
        "process_cpu_seconds_total ",
    ] {
        assert!(text.lines().any(|l| l.starts_with(series)), "no `{series}`:\n{text}");
    }
}

/// Poll `/metrics` until a line is `line` (within 20 s).
async fn metric_reaches(client: &reqwest::Client, url: &str, line: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = client
            .get(format!("{url}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.lines().any(|l| l == line) {
            return;
        }
        assert!(Instant::now() < deadline, "never `{line}`:\n{text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sigint_exits_at_once() {
    let grace = [
        "--shutdown-grace-ms",
        "60000",
        "--body-read-timeout-ms",
        "60000",
        "--request-timeout-ms",
        "120000",
    ];
    let mut served = Served::start(&temp_db(), &grace);
    // A request whose body never finishes arriving: in flight until the 60 s timeouts.
    let addr = served.url.trim_start_matches("http://").to_string();
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        slow,
        "POST /v1/skus HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{{\"sku\""
    )
    .unwrap();
    let client = reqwest::Client::new();
    // The slow request and the /metrics request itself.
    metric_reaches(&client, &served.url, "allot_http_requests_in_flight 2").await;
    served.signal("-INT");
    served.line_with("shutting down");
    assert!(
        served.child.try_wait().unwrap().is_none(),
        "the first SIGINT waits for the request in flight"
    );
    served.signal("-INT");
    served.line_with("stopped at once");
    assert_eq!(served.exit_code(Duration::from_secs(10)), Some(130));
    drop(slow);
}

/// A busy address: `allot serve` exits with one line naming `--listen` (no backtrace), and
/// creates no database file (the address is bound before the store is opened).
#[test]
fn a_busy_address_names_listen_and_leaves_no_database() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let db = temp_db();
    let out = Command::new(env!("CARGO_BIN_EXE_allot"))
        .args(["serve", "--database-url", &db, "--listen", &listen])
        .env_remove("ALLOT_CONFIG")
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot bind {listen}")) && stderr.contains("--listen"),
        "{stderr}"
    );
    assert!(!stderr.contains("store unavailable"), "{stderr}");
    // One line, even where a developer keeps RUST_BACKTRACE=1.
    assert!(!stderr.contains("backtrace") && stderr.lines().count() == 1, "{stderr}");
    let path = db.trim_start_matches("sqlite://");
    assert!(!std::path::Path::new(path).exists(), "no database made: {path}");
}
