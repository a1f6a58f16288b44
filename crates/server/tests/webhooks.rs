//! Webhooks against a local receiver on both backends: every event delivered at least once
//! with a valid Standard Webhooks signature (checked by Python's `hmac`, an implementation
//! independent of allot's), retries on the spec's schedule (the server's clock moved past
//! each step), `Retry-After` honoured, `410` disables the endpoint, a redirect is a failure
//! and its target never hears from allot, dead letters after the last attempt, rotation
//! signs with both secrets, redelivery by hand, and refused bodies.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

conformance!(mod delivered, |c| {
    c.webhook_allow_private = true;
    c.webhook_timeout_ms = 500;
    c.webhook_dispatch_interval_ms = 20;
}; deliveries_retries_and_dead_letters, rotation_and_redelivery, tenants_hear_only_their_own, job_events_reach_a_webhook);
conformance!(mod guarded, |c| c.webhook_dispatch_interval_ms = 20; private_targets_are_refused_and_bodies_checked);

/// One request the receiver got: its path, headers and body.
#[derive(Clone, Debug)]
struct Received {
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

/// A receiver on 127.0.0.1: `/ok` answers 204, `/flaky` 500 then 204, `/slow` waits past
/// the timeout once, `/gone` 410, `/redirect` 302 to `/target`, `/limited` 429 with
/// `Retry-After: 3600` once, `/down` always 500. It records every request.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    async fn start() -> Receiver {
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let seen = got.clone();
        let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
            let seen = seen.clone();
            async move {
                let path = req.uri().path().to_string();
                let headers = req
                    .headers()
                    .iter()
                    .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect();
                let bytes = axum::body::to_bytes(req.into_body(), 1 << 20).await.unwrap();
                let body = String::from_utf8(bytes.to_vec()).unwrap();
                let before = {
                    let mut g = seen.lock().unwrap();
                    let before = g.iter().filter(|r: &&Received| r.path == path).count();
                    g.push(Received {
                        path: path.clone(),
                        headers,
                        body,
                    });
                    before
                };
                answer(&path, before).await
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, got }
    }

    fn at(&self, path: &str) -> Vec<Received> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// The requests to `path` once there are `n`, polled (deliveries poll the queue).
    async fn wait(&self, path: &str, n: usize) -> Vec<Received> {
        for _ in 0..400 {
            let got = self.at(path);
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{path}: fewer than {n} requests: {:?}", self.at(path));
    }
}

/// The receiver's answer to the `before`-th earlier request on `path`.
async fn answer(path: &str, before: usize) -> axum::response::Response {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    match (path, before) {
        ("/ok" | "/ok2" | "/target", _) | ("/flaky" | "/slow" | "/limited", 1..) => {
            StatusCode::NO_CONTENT.into_response()
        }
        ("/slow", 0) => {
            tokio::time::sleep(Duration::from_secs(2)).await;
            StatusCode::NO_CONTENT.into_response()
        }
        ("/gone", _) => StatusCode::GONE.into_response(),
        ("/redirect", _) => (StatusCode::FOUND, [("location", "/target")]).into_response(),
        ("/limited", 0) => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "3600")]).into_response(),
        _ => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Check every request's signature with Python's `hmac` (one process for all): each must
/// carry a `v1,` signature by one of `secrets` over `{id}.{timestamp}.{body}`.
fn verify_independently(got: &[Received], secrets: &[&str]) {
    let cases: Vec<Value> = got
        .iter()
        .map(|r| {
            json!({"id": r.headers["webhook-id"], "ts": r.headers["webhook-timestamp"], "body": r.body,
                   "sig": r.headers["webhook-signature"]})
        })
        .collect();
    let script = r#"
import base64, hashlib, hmac, json, sys
data = json.load(sys.stdin)
keys = [base64.b64decode(s[len("whsec_"):]) for s in data["secrets"]]
for c in data["cases"]:
    signed = (c["id"] + "." + c["ts"] + "." + c["body"]).encode()
    sent = [s.split(",", 1)[1] for s in c["sig"].split(" ") if s.startswith("v1,")]
    good = [base64.b64encode(hmac.new(k, signed, hashlib.sha256).digest()).decode() for k in keys]
    if not any(hmac.compare_digest(s, g) for s in sent for g in good):
        sys.exit("bad signature on " + c["id"])
"#;
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = json!({"cases": cases, "secrets": secrets}).to_string();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), input.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "Python's hmac accepts every signature");
}

/// Make an endpoint at `url` for `types`; its id and secret.
async fn endpoint(ts: &TestServer, url: String, types: Value) -> (String, String) {
    let made = ts.ok("/v1/webhooks", json!({"url": url, "types": types})).await;
    assert_eq!(made["status"], "enabled");
    (
        made["id"].as_str().unwrap().to_string(),
        made["secret"].as_str().unwrap().to_string(),
    )
}

/// Move the server's clock past the longest retry step, so every waiting retry is due.
fn next_step(ts: &TestServer) {
    ts.clock.advance_ms(11 * 3_600_000);
}

/// Wait (bounded) until the feed shows `n` events: on PostgreSQL the sequencer numbers them a
/// moment after their commit, and an endpoint made before that would receive them.
async fn sequenced(ts: &TestServer, n: usize) {
    for _ in 0..500 {
        let (_, page) = ts.get("/v1/events?after=0").await;
        if page["events"].as_array().map_or(0, Vec::len) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the feed never showed {n} events");
}

async fn deliveries_retries_and_dead_letters(ts: &TestServer) {
    let r = Receiver::start().await;
    ts.create_sku("W", 10, 1).await;
    // The SKU's own event is before every endpoint, so /ok's first delivery is the allocation.
    sequenced(ts, 1).await;
    let mut secrets = Vec::new();
    for (path, types) in [
        ("/ok", json!(["*"])),
        ("/flaky", json!(["allocation.created"])),
        ("/slow", json!(["allocation.created"])),
        ("/gone", json!(["*"])),
        ("/redirect", json!(["allocation.created"])),
        ("/limited", json!(["allocation.created"])),
        ("/down", json!(["allocation.created"])),
    ] {
        secrets.push(endpoint(ts, format!("{}{path}", r.url), types).await.1);
    }
    let a = ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "W", "quantity": 1}]}))
        .await;
    let ok = r.wait("/ok", 1).await;
    let event: Value = serde_json::from_str(&ok[0].body).unwrap();
    assert_eq!(
        (event["type"].as_str(), &event["object"]),
        (Some("allocation.created"), &a["id"])
    );
    assert_eq!(
        ok[0].headers["webhook-id"],
        format!("default/{}", event["cursor"]),
        "webhook-id is the tenant and the cursor"
    );
    assert_eq!(ok[0].headers["content-type"], "application/json");
    assert_eq!(r.wait("/flaky", 1).await.len(), 1);
    r.wait("/gone", 1).await;
    r.wait("/redirect", 1).await;
    r.wait("/limited", 1).await;
    r.wait("/slow", 1).await;
    // Retries wait for their step of the schedule: nothing more until the clock passes it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(r.at("/flaky").len(), 1, "the retry waits for its step");
    // Past the second step (5 s, with jitter at most 6 s), not past /limited's Retry-After (1 h).
    ts.clock.advance_ms(6_500);
    let flaky = r.wait("/flaky", 2).await;
    assert_eq!(
        flaky[0].headers["webhook-id"], flaky[1].headers["webhook-id"],
        "a retry is the same message"
    );
    r.wait("/slow", 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(r.at("/limited").len(), 1, "Retry-After: 3600 holds its retry back");
    next_step(ts);
    r.wait("/limited", 2).await;
    // 410 disabled its endpoint: a new event goes to /ok, not to /gone.
    let (_, list) = ts.get("/v1/webhooks").await;
    let gone = list["webhooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["url"].as_str().unwrap().ends_with("/gone"));
    assert_eq!(gone.unwrap()["status"], "disabled");
    ts.ok("/v1/allocations", json!({"lines": [{"sku": "W", "quantity": 1}]}))
        .await;
    r.wait("/ok", 2).await;
    // The redirect and the endpoint that always fails run out of attempts: dead letters.
    let dead = dead_letters(ts).await;
    assert_eq!(
        dead, 4,
        "the redirect and /down, for each of the two allocations: {dead}"
    );
    let attempts = allot_core::webhook::DELIVERY_ATTEMPTS as usize;
    assert_eq!(r.at("/down").len(), 2 * attempts, "every attempt, no more");
    assert_eq!(r.at("/redirect").len(), 2 * attempts, "every attempt, no more");
    assert!(r.at("/target").is_empty(), "a redirect is never followed");
    assert_eq!(r.at("/gone").len(), 1, "a disabled endpoint hears nothing more");
    // Each endpoint's health, as its attempts left it.
    let (_, list) = ts.get("/v1/webhooks").await;
    let health = |path: &str| {
        let w = list["webhooks"].as_array().unwrap().iter();
        w.clone().find(|w| w["url"].as_str().unwrap().ends_with(path)).unwrap()["health"].clone()
    };
    assert_eq!(
        (
            health("/down")["consecutive_failures"].as_i64(),
            health("/down")["last_status"].as_i64()
        ),
        (Some(2 * attempts as i64), Some(500))
    );
    assert!(health("/down")["last_success_at"].is_null() && health("/down")["failing_since"].is_string());
    assert_eq!(
        (
            health("/ok")["consecutive_failures"].as_i64(),
            health("/ok")["last_status"].as_i64()
        ),
        (Some(0), Some(204))
    );
    assert!(health("/ok")["failing_since"].is_null());
    assert_eq!(health("/gone")["last_status"].as_i64(), Some(410));
    assert_eq!(health("/redirect")["last_status"].as_i64(), Some(302));
    let all: Vec<Received> = r.got.lock().unwrap().clone();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    verify_independently(&all, &secrets);
}

/// Discarded deliveries of the delivery queue once there are four, moving the server's clock
/// past a retry step on every look, so no retry waits on a clock the test forgot to move
/// (each look is bounded; a slow machine just takes more of them).
async fn dead_letters(ts: &TestServer) -> usize {
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let tenant = allot_core::Tenant::stored(allot_core::webhook::DELIVERY_TENANT);
    let mut dead = Vec::new();
    for _ in 0..400 {
        next_step(ts);
        dead = store
            .list_jobs(
                &tenant,
                "deliveries",
                allot_core::JobState::Discarded.into(),
                allot_core::Page::new(0, 100),
            )
            .await
            .unwrap()
            .items;
        if dead.len() >= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Let any attempt still in flight finish, so a count taken after this is final.
    tokio::time::sleep(Duration::from_millis(200)).await;
    dead.len()
}

async fn rotation_and_redelivery(ts: &TestServer) {
    let r = Receiver::start().await;
    ts.create_sku("R", 10, 1).await;
    let (id, old) = endpoint(ts, format!("{}/ok", r.url), json!(["allocation.created"])).await;
    ts.ok("/v1/allocations", json!({"lines": [{"sku": "R", "quantity": 1}]}))
        .await;
    r.wait("/ok", 1).await;
    let rotated = ts.ok(&format!("/v1/webhooks/{id}/rotate"), json!({})).await;
    let new = rotated["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    ts.ok("/v1/allocations", json!({"lines": [{"sku": "R", "quantity": 1}]}))
        .await;
    let got = r.wait("/ok", 2).await;
    assert_eq!(
        got[1].headers["webhook-signature"].split(' ').count(),
        2,
        "both during the overlap"
    );
    verify_independently(&got[1..], &[&new]);
    verify_independently(&got[1..], &[&old]);
    // By hand: everything after cursor 0 again (the two allocations it wants).
    let (s, again) = ts
        .post(&format!("/v1/webhooks/{id}/redeliver"), json!({"after": 0}))
        .await;
    assert_eq!((s, again["queued"].as_u64()), (202, Some(2)), "{again}");
    let got = r.wait("/ok", 4).await;
    let mut ids: Vec<&str> = got.iter().map(|g| g.headers["webhook-id"].as_str()).collect();
    ids[..2].sort_unstable();
    ids[2..].sort_unstable();
    assert_eq!(
        ids[2..],
        ids[..2],
        "the same messages, again (deliveries are not ordered)"
    );
    // One event: `until` ends the range at the first one's cursor.
    let one: i64 = ids[0].strip_prefix("default/").unwrap().parse().unwrap();
    let (s, again) = ts
        .post(
            &format!("/v1/webhooks/{id}/redeliver"),
            json!({"after": one - 1, "until": one}),
        )
        .await;
    assert_eq!((s, again["queued"].as_u64()), (202, Some(1)), "{again}");
    let got = r.wait("/ok", 5).await;
    assert_eq!(got[4].headers["webhook-id"], ids[0], "only that event");
    let (s, _) = ts.post("/v1/webhooks/nope/redeliver", json!({"after": 0})).await;
    assert_eq!(s, 404);
    let resp = ts
        .client
        .delete(format!("{}/v1/webhooks/{id}", ts.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    let (_, list) = ts.get("/v1/webhooks").await;
    assert!(list["webhooks"].as_array().unwrap().is_empty());
}

async fn private_targets_are_refused_and_bodies_checked(ts: &TestServer) {
    let r = Receiver::start().await;
    ts.create_sku("P", 10, 1).await;
    // Refused at creation, naming the field and the flag that allows them.
    for url in [
        format!("{}/ok", r.url),
        "http://localhost:9/x".to_string(),
        "http://[::1]:9/x".to_string(),
        "https://10.1.2.3/x".to_string(),
        "https://169.254.169.254/latest/meta-data".to_string(),
    ] {
        let (s, b) = ts.post("/v1/webhooks", json!({"url": url, "types": ["*"]})).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (400, Some("invalid_request")),
            "{url}: {b}"
        );
        let message = b["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("url:") && message.contains("--webhook-allow-private"),
            "{url}: {message}"
        );
    }
    assert_eq!(
        ts.get("/v1/webhooks").await.1["webhooks"],
        json!([]),
        "a refused endpoint was kept"
    );
    // One made before the guard (or a name that resolved to a public address then): its
    // deliveries are refused all the same.
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let new = allot_core::webhook::NewWebhook {
        url: format!("{}/ok", r.url),
        types: vec![],
        secret: vec![7; 32],
    };
    store
        .create_webhook(&allot_core::Tenant::default_tenant(), "w-old", new)
        .await
        .unwrap();
    for (body, field) in [
        (json!({"url": "ftp://example.com/", "types": ["*"]}), "url"),
        (json!({"url": "https://u:p@example.com/", "types": ["*"]}), "url"),
        (json!({"url": "https://example.com/", "types": []}), "types"),
        (json!({"url": "https://example.com/", "types": ["sku.gone"]}), "types"),
        (
            json!({"url": "https://example.com/", "types": ["*"], "secret": "whsec_c2hvcnQ="}),
            "secret",
        ),
        (
            json!({"url": "https://example.com/", "types": ["*"], "extra": 1}),
            "extra",
        ),
    ] {
        let (s, b) = ts.post("/v1/webhooks", body.clone()).await;
        assert_eq!(s, 400, "{body}: {b}");
        assert!(b.to_string().contains(field), "{body} names {field}: {b}");
    }
    ts.ok("/v1/allocations", json!({"lines": [{"sku": "P", "quantity": 1}]}))
        .await;
    // Loopback is refused without --webhook-allow-private: the delivery's first attempt fails
    // with the refusal (waited for on the queue, not by a sleep), and no request left.
    let tenant = allot_core::Tenant::stored(allot_core::webhook::DELIVERY_TENANT);
    let mut refused = Vec::new();
    for _ in 0..400 {
        refused = store
            .list_jobs(
                &tenant,
                "deliveries",
                allot_core::JobState::Retryable.into(),
                allot_core::Page::new(0, 10),
            )
            .await
            .unwrap()
            .items;
        if !refused.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(refused.len(), 1, "one delivery, refused once: {refused:?}");
    assert!(
        refused[0].errors.to_string().contains("may not") || refused[0].errors.to_string().contains("resolves only"),
        "{:?}",
        refused[0].errors
    );
    assert!(r.at("/ok").is_empty(), "nothing sent to 127.0.0.1");
}

/// Two tenants, each with an endpoint: each hears its own events and never the other's.
async fn tenants_hear_only_their_own(ts: &TestServer) {
    let r = Receiver::start().await;
    let scopes = [allot_core::access::Scope::Admin];
    let (_, acme) = common::make_key(ts, "acme", "a", &scopes, None).await;
    let (_, globex) = common::make_key(ts, "globex", "g", &scopes, None).await;
    let mut mine = HashMap::new();
    for (secret, path) in [(&acme, "/ok"), (&globex, "/ok2")] {
        let bearer = format!("Bearer {secret}");
        let hook = json!({"url": format!("{}{path}", r.url), "types": ["allocation.created"]});
        ts.ok_with(&bearer, "/v1/webhooks", hook).await;
        ts.ok_with(&bearer, "/v1/skus", json!({"sku": "S", "on_hand": 5})).await;
        let a = ts
            .ok_with(
                &bearer,
                "/v1/allocations",
                json!({"lines": [{"sku": "S", "quantity": 1}]}),
            )
            .await;
        mine.insert(path, a["id"].clone());
    }
    for path in ["/ok", "/ok2"] {
        r.wait(path, 1).await;
    }
    // Give a wrong delivery, if there were one, time to arrive.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for path in ["/ok", "/ok2"] {
        let got = r.at(path);
        assert_eq!(got.len(), 1, "{path}: one event, its tenant's");
        let event: Value = serde_json::from_str(&got[0].body).unwrap();
        assert_eq!(event["object"], mine[path], "{path} heard only its own tenant");
    }
    // One receiver for both (one SaaS, one endpoint): the spec's deduplication key differs,
    // though both events are their tenant's first allocation at the same cursor.
    let (acme_id, globex_id) = (
        &r.at("/ok")[0].headers["webhook-id"],
        &r.at("/ok2")[0].headers["webhook-id"],
    );
    assert_ne!(acme_id, globex_id, "two tenants' messages share a webhook-id");
    assert!(
        acme_id.starts_with("acme/") && globex_id.starts_with("globex/"),
        "{acme_id} {globex_id}"
    );
}

/// Job lifecycle events through a webhook, opt-in per queue: a queue without `events` writes
/// none (only `job.discarded`, always); with it, a failed attempt (`job.failed` with the
/// error and when it runs again), a completion, a cancel, and a batch's `batch.completed`
/// with its counts reach the endpoint, each once, signed.
async fn job_events_reach_a_webhook(ts: &TestServer) {
    let r = Receiver::start().await;
    let types = json!([
        "job.completed",
        "job.failed",
        "job.cancelled",
        "job.discarded",
        "batch.completed"
    ]);
    let (_, secret) = endpoint(ts, format!("{}/ok", r.url), types).await;
    let claim = |q: &'static str| async move {
        let (s, b) = ts
            .post(
                &format!("/v1/queues/{q}/claims"),
                json!({"max": 10, "lease_ms": 60_000}),
            )
            .await;
        assert_eq!(s, 200, "{b}");
        b["jobs"].as_array().unwrap().clone()
    };
    // Quiet: no events.
    ts.ok("/v1/queues/quiet/jobs", json!({"jobs": [{}]})).await;
    let j = &claim("quiet").await[0];
    ts.ok(
        &format!("/v1/jobs/{}/complete", j["id"]),
        json!({"lease_token": j["lease_token"]}),
    )
    .await;
    let (s, _) = ts.send_json("PUT", "/v1/queues/loud", json!({"events": true})).await;
    assert_eq!(s, 200);
    let body = json!({"jobs": [{"max_attempts": 2}, {}],
                      "batch": {"id": "loud-1", "callback": {}}});
    let made = ts.ok("/v1/queues/loud/jobs", body).await;
    let ids: Vec<i64> = made["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let got = claim("loud").await;
    let first = got.iter().find(|j| j["id"] == ids[0]).unwrap();
    let fail = json!({"lease_token": first["lease_token"], "error": "smtp down", "retry_in_ms": 0});
    ts.ok(&format!("/v1/jobs/{}/fail", ids[0]), fail).await;
    let second = got.iter().find(|j| j["id"] == ids[1]).unwrap();
    ts.ok(
        &format!("/v1/jobs/{}/complete", ids[1]),
        json!({"lease_token": second["lease_token"]}),
    )
    .await;
    ts.ok(&format!("/v1/jobs/{}/cancel", ids[0]), json!({})).await;
    let got = r.wait("/ok", 4).await;
    verify_independently(&got, &[&secret]);
    // Deliveries run apart: the feed's cursor orders them.
    let mut events: Vec<Value> = got.iter().map(|g| serde_json::from_str(&g.body).unwrap()).collect();
    events.sort_by_key(|e| e["cursor"].as_i64());
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["job.failed", "job.completed", "job.cancelled", "batch.completed"],
        "{events:?}"
    );
    let failed = &events[0]["data"];
    assert_eq!(
        (&failed["error"], &failed["attempt"], &failed["queue"]),
        (&json!("smtp down"), &json!(1), &json!("loud"))
    );
    assert!(failed["retry_at"].is_string(), "{failed}");
    let batch = &events[3]["data"];
    assert_eq!(
        (&batch["id"], &batch["jobs"], &batch["completed"], &batch["cancelled"]),
        (&json!("loud-1"), &json!(2), &json!(1), &json!(1)),
        "{batch}"
    );
    assert_eq!(batch["callback_id"], made["batch"]["callback_id"]);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(r.at("/ok").len(), 4, "nothing from the quiet queue, nothing twice");
}
