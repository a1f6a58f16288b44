//! The console in a real headless Chromium (Debian's `chromium`, driven over WebDriver by
//! `chromedriver` and fantoccini), on both backends, against a server that requires keys:
//! a SKU and a hold made through the API appear with the countdown; selling the SKU out
//! marks it live; a job failed into the dead letters is retried from its page; a bulk retry
//! by filter shows its count first and leaves an audit entry naming the key; a read-only key
//! sees no action buttons; a second tenant's key sees nothing of the first. Screenshots of
//! each page go to `target/console-screenshots/` (test artifacts).

mod common;

use allot_core::access::Scope;
use common::{make_key, start_keyed, Kind, TestServer};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a page may take to show what the test waits for.
const PATIENCE: Duration = Duration::from_secs(15);

/// A `chromedriver` of the test's own on a free port, killed on drop.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn driver() -> Driver {
    let port = free_port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver: install Debian's chromium and chromium-driver (scripts/test does)");
    let d = Driver { child, port };
    let deadline = Instant::now() + PATIENCE;
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    d
}

async fn browser(d: &Driver) -> Client {
    let caps = json!({
        "goog:chromeOptions": {
            "binary": std::env::var("ALLOT_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--lang=en-US"]
        }
    });
    let caps = caps.as_object().unwrap().clone();
    // Both of rustls's providers are in the build (ring by allot's features, aws-lc by a
    // dependency's): name one for the WebDriver connection.
    let _ = rustls::crypto::ring::default_provider().install_default();
    ClientBuilder::rustls()
        .expect("rustls")
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", d.port))
        .await
        .expect("a WebDriver session of chromium")
}

/// The text of the first element `css` matches once `ok` holds for it (polled, bounded).
async fn until(c: &Client, css: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + PATIENCE;
    let mut last = String::new();
    loop {
        if let Ok(el) = c.find(Locator::Css(css)).await {
            if let Ok(text) = el.text().await {
                if ok(&text) {
                    return text;
                }
                last = text;
            }
        }
        if Instant::now() >= deadline {
            let status = match c.find(Locator::Css("#status")).await {
                Ok(el) => el.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            panic!("`{css}` never showed what was expected; last: {last:?}; status line: {status:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn shows(c: &Client, css: &str, part: &str) -> String {
    until(c, css, |t| t.contains(part)).await
}

async fn absent(c: &Client, css: &str) {
    assert!(
        c.find_all(Locator::Css(css)).await.unwrap().is_empty(),
        "`{css}` is on the page"
    );
}

/// The text of `main` outside quoted data (`code`, `pre`: JSON may hold a null) never holds a
/// `null` (a child left out by mistake shows as one).
async fn no_null(c: &Client) {
    let text = c
        .execute(
            "const m = document.getElementById('main').cloneNode(true); \
             m.querySelectorAll('code, pre').forEach((e) => e.remove()); return m.textContent;",
            vec![],
        )
        .await
        .unwrap();
    let text = text.as_str().unwrap_or_default();
    assert!(!text.contains("null"), "a literal null on the page: {text}");
}

/// The page is no wider than the window (nothing makes it scroll sideways).
async fn no_sideways_scroll(c: &Client) {
    let wide = c
        .execute(
            "const d = document.documentElement; return [d.scrollWidth, d.clientWidth];",
            vec![],
        )
        .await
        .unwrap();
    let (scroll, client) = (wide[0].as_i64().unwrap(), wide[1].as_i64().unwrap());
    assert!(scroll <= client, "the page scrolls sideways: {scroll} > {client}");
}

/// A chart `css` drawn (a canvas) with at least `points` points.
async fn drawn(c: &Client, css: &str, points: i64) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let found = c
            .execute(
                "const f = document.querySelector(arguments[0]); return f && f.querySelector('canvas') ? Number(f.dataset.points) : -1;",
                vec![json!(css)],
            )
            .await
            .unwrap();
        if found.as_i64().unwrap_or(-1) >= points {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "`{css}` drew no chart of {points} points ({found})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Click the first element `css` matches (it must be on the page).
async fn click(c: &Client, css: &str) {
    click_at(c, Locator::Css(css)).await;
}

/// Click the first element `at` finds (it must be on the page within PATIENCE). A live page
/// may draw the element again between the find and the click: found again, clicked again.
async fn click_at(c: &Client, at: Locator<'_>) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let done = match c.find(at).await {
            Ok(el) => el.click().await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match done {
            Ok(()) => return,
            Err(e) => assert!(Instant::now() < deadline, "could not click {at:?}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn screenshot(c: &Client, kind: Kind, name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/console-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = c.screenshot().await.unwrap();
    std::fs::write(
        dir.join(format!("{}-{name}.png", format!("{kind:?}").to_lowercase())),
        png,
    )
    .unwrap();
}

/// Open `hash` (reloading when it is already open) and wait until the console says that page
/// has loaded (`main[data-ready]`), or that it asks for a key.
async fn go(c: &Client, ts: &TestServer, hash: &str) {
    let url = format!("{}/{hash}", ts.url);
    let here = c.current_url().await.map(|u| u.to_string()).unwrap_or_default();
    if here == url {
        c.refresh().await.unwrap();
    } else {
        c.goto(&url).await.unwrap();
    }
    let deadline = Instant::now() + PATIENCE;
    loop {
        let ready = c
            .execute(
                "const m = document.getElementById('main'); return m ? (m.dataset.ready || '') : '';",
                vec![],
            )
            .await
            .unwrap();
        if ready == hash || ready == "sign-in" {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{hash} never finished loading (ready: {ready})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn sign_in(c: &Client, ts: &TestServer, secret: &str) {
    go(c, ts, "#/").await;
    if c.find(Locator::Css("#sign-out")).await.is_ok() {
        click(c, "#sign-out").await;
    }
    let key = c
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("#key"))
        .await
        .unwrap();
    key.send_keys(secret).await.unwrap();
    click(c, "#sign-in button[type=submit]").await;
    shows(c, "#who", "tenant").await;
}

async fn api(ts: &TestServer, bearer: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    ts.ok_as(bearer, method, path, body).await
}

/// Create `sku` with `on_hand` through the API as `bearer`.
async fn create_sku(ts: &TestServer, bearer: &str, sku: &str, on_hand: i64) {
    api(
        ts,
        bearer,
        "POST",
        "/v1/skus",
        Some(json!({"sku": sku, "on_hand": on_hand})),
    )
    .await;
}

/// Enqueue `n` jobs of one attempt to `queue` with `tags`, claim and fail them: dead letters.
async fn dead_letters(ts: &TestServer, bearer: &str, queue: &str, n: usize, tags: &[&str]) -> Vec<i64> {
    let jobs: Vec<Value> = (0..n)
        .map(|i| json!({"payload": {"n": i}, "max_attempts": 1, "tags": tags}))
        .collect();
    let path = format!("/v1/queues/{queue}/jobs");
    api(ts, bearer, "POST", &path, Some(json!({ "jobs": jobs }))).await;
    let claimed = api(
        ts,
        bearer,
        "POST",
        &format!("/v1/queues/{queue}/claims"),
        Some(json!({"max": n})),
    )
    .await;
    let mut ids = Vec::new();
    for j in claimed["jobs"].as_array().unwrap() {
        let id = j["id"].as_i64().unwrap();
        let fail = json!({"lease_token": j["lease_token"], "error": "smtp: 550 mailbox unavailable"});
        api(ts, bearer, "POST", &format!("/v1/jobs/{id}/fail"), Some(fail)).await;
        ids.push(id);
    }
    assert_eq!(ids.len(), n);
    ids
}

struct Keys {
    admin_id: String,
    admin: String,
    reader: String,
    other: String,
}

async fn keys(ts: &TestServer) -> Keys {
    use Scope::*;
    let (admin_id, admin) = make_key(ts, "acme", "ops", &[Admin], None).await;
    let read = [StockRead, UnitsRead, BookingsRead, JobsRead, EventsRead];
    let (_, reader) = make_key(ts, "acme", "viewer", &read, None).await;
    let (_, other) = make_key(ts, "globex", "ops", &[Admin], None).await;
    let b = |s: String| format!("Bearer {s}");
    Keys {
        admin_id,
        admin: b(admin),
        reader: b(reader),
        other: b(other),
    }
}

async fn scenario(kind: Kind) {
    let ts = start_keyed(kind).await;
    let k = keys(&ts).await;
    let d = driver().await;
    let c = browser(&d).await;
    let secret = |bearer: &str| bearer.trim_start_matches("Bearer ").to_string();
    go(&c, &ts, "#/").await;
    c.wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("#sign-in"))
        .await
        .unwrap();
    screenshot(&c, kind, "0-sign-in").await;
    sign_in(&c, &ts, &secret(&k.admin)).await;
    stock(&c, &ts, &k, kind).await;
    queues(&c, &ts, &k, kind).await;
    sign_in(&c, &ts, &secret(&k.reader)).await;
    read_only(&c, &ts, kind).await;
    sign_in(&c, &ts, &secret(&k.other)).await;
    other_tenant(&c, &ts, kind).await;
    c.close().await.unwrap();
}

/// A SKU and a hold appear with the countdown; selling out marks the SKU, live.
async fn stock(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    create_sku(ts, &k.admin, "TEE-RED-M", 3).await;
    create_sku(ts, &k.admin, "MUG", 40).await;
    let hold = json!({"lines": [{"sku": "TEE-RED-M", "quantity": 1}], "ttl_ms": 600_000});
    let hold = api(ts, &k.admin, "POST", "/v1/holds", Some(hold)).await;
    let hold_id = hold["id"].as_str().unwrap();
    go(c, ts, "#/").await;
    shows(c, "#overview", "Allocations").await;
    shows(c, "#instances", "(this one)").await;
    screenshot(c, kind, "1-overview").await;
    go(c, ts, "#/stock").await;
    shows(c, "#sku-list", "TEE-RED-M").await;
    screenshot(c, kind, "2-stock").await;
    go(c, ts, "#/stock/TEE-RED-M").await;
    let holds = shows(c, "#holds", hold_id).await;
    assert!(
        holds.contains("in 9 min") || holds.contains("in 10 min"),
        "the countdown: {holds}"
    );
    shows(c, "#sku", "in stock").await;
    shows(c, "#feed-state", "live").await;
    drawn(c, "#sku-chart", 2).await;
    // Its events include its hold's, not only those whose object is the SKU.
    shows(c, "#sku-events", "hold.created").await;
    screenshot(c, kind, "3-sku-with-hold").await;
    // The page follows the feed: an allocation of the rest sells it out while it is open.
    let sell = json!({"lines": [{"sku": "TEE-RED-M", "quantity": 2}]});
    api(ts, &k.admin, "POST", "/v1/allocations", Some(sell)).await;
    shows(c, "#sku", "sold out").await;
    screenshot(c, kind, "4-sku-sold-out").await;
    go(c, ts, "#/stock?filter=sold_out").await;
    let list = until(c, "#sku-list", |t| t.contains("TEE-RED-M")).await;
    assert!(!list.contains("MUG"), "only sold-out SKUs: {list}");
    release_asks(c, ts, k, kind).await;
    units_and_feed(c, ts, k, kind).await;
    bookings(c, ts, k, kind).await;
}

/// "Release" on a SKU's page of a hold that also holds another SKU and a booking asks first,
/// naming them; "Keep" keeps it; confirmed, the whole hold is released.
async fn release_asks(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    create_sku(ts, &k.admin, "CAP", 5).await;
    let two = json!({"lines": [{"sku": "MUG", "quantity": 2}, {"sku": "CAP", "quantity": 1},
                               {"booking": {"resource": "bay-7", "start": "2031-05-01T18:00:00Z",
                                            "end": "2031-05-01T23:00:00Z"}}],
                     "ttl_ms": 600_000});
    let hold = api(ts, &k.admin, "POST", "/v1/holds", Some(two)).await;
    let id = hold["id"].as_str().unwrap().to_string();
    go(c, ts, "#/stock/MUG").await;
    shows(c, "#holds", "CAP × 1").await;
    shows(c, "#holds", "bookings bay-7").await;
    click_at(c, Locator::XPath("//button[.='Release…']")).await;
    shows(c, "#holds", "also CAP, bay-7").await;
    screenshot(c, kind, "4a-release-asks").await;
    click_at(c, Locator::XPath("//button[.='Keep']")).await;
    let held = api(ts, &k.admin, "GET", &format!("/v1/holds/{id}"), None).await;
    assert_eq!(held["status"], "held", "Keep released nothing");
    click_at(c, Locator::XPath("//button[.='Release…']")).await;
    click(c, &format!("button[data-confirm='{id}']")).await;
    shows(c, "#status", "with its lines of CAP, bay-7").await;
    let released = api(ts, &k.admin, "GET", &format!("/v1/holds/{id}"), None).await;
    assert_eq!(released["status"], "released");
    assert_eq!(released["bookings"][0]["status"], "released", "{released}");
}

/// A unit-tracked SKU's units by status; the live feed shows an event made through the API.
async fn units_and_feed(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    let units = json!({"units": [{"serial": "FRAME-001", "lot": "L1"}, {"serial": "FRAME-002", "lot": "L2"}]});
    api(ts, &k.admin, "POST", "/v1/skus/BIKE/units", Some(units)).await;
    go(c, ts, "#/stock/BIKE/units?status=available&lot=L2").await;
    let listed = shows(c, "#units", "FRAME-002").await;
    assert!(!listed.contains("FRAME-001"), "by lot: {listed}");
    screenshot(c, kind, "4c-units").await;
    // A hold of a mug and a bike (a unit line) reads as mixed on the mug's page, with its unit.
    let mixed =
        json!({"lines": [{"sku": "MUG", "quantity": 1}, {"units": {"sku": "BIKE", "quantity": 1}}], "ttl_ms": 600_000});
    api(ts, &k.admin, "POST", "/v1/holds", Some(mixed)).await;
    go(c, ts, "#/stock/MUG").await;
    let holds = shows(c, "#holds", "(mixed)").await;
    assert!(
        holds.contains("BIKE × 1") && holds.contains("units FRAME-001"),
        "{holds}"
    );
    go(c, ts, "#/events").await;
    // It opens with the latest events already in the feed, before anything new happens.
    shows(c, "#events", "units.received").await;
    shows(c, "#feed-state", "live").await;
    api(
        ts,
        &k.admin,
        "POST",
        "/v1/skus/MUG/adjustments",
        Some(json!({"delta": 5})),
    )
    .await;
    shows(c, "#events", "stock.adjusted").await;
    no_sideways_scroll(c).await;
    screenshot(c, kind, "4d-events").await;
}

/// A booking made through the API on the resource's timeline, between its free gaps.
async fn bookings(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    let book = async |resource: &str, start: &str, end: &str, holder: &str| {
        let b = json!({"start": start, "end": end, "holder": holder});
        api(
            ts,
            &k.admin,
            "POST",
            &format!("/v1/resources/{resource}/bookings"),
            Some(b),
        )
        .await;
    };
    book("room-1", "2030-05-04T09:00:00Z", "2030-05-04T11:00:00Z", "ada").await;
    book("room-1", "2030-05-04T15:00:00Z", "2030-05-04T16:00:00Z", "bob").await;
    go(c, ts, "#/bookings/room-1?day=2030-05-04&days=1").await;
    let timeline = shows(c, "main ol.timeline", "ada").await;
    let order: Vec<&str> = timeline.lines().map(|l| l.split(' ').next().unwrap_or("")).collect();
    assert_eq!(order, ["free", "confirmed", "free", "confirmed", "free"], "{timeline}");
    // Each bar starts where its booking starts in the day: 09:00 and 15:00.
    let lefts = c
        .execute(
            "return [...document.querySelectorAll('.bar.booked')].map((b) => b.dataset.left);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(lefts, json!(["0.3750", "0.6250"]));
    drawn(c, "#fill-chart", 1).await;
    screenshot(c, kind, "4b-bookings-timeline").await;
    // Without a day, the timeline starts today and shows the week ahead.
    let day = |d: i64| {
        (chrono::Utc::now() + chrono::Duration::days(d))
            .format("%Y-%m-%d")
            .to_string()
    };
    book(
        "room-2",
        &format!("{}T10:00:00Z", day(2)),
        &format!("{}T12:00:00Z", day(2)),
        "cyd",
    )
    .await;
    go(c, ts, "#/bookings/room-2").await;
    shows(c, "main ol.timeline", "cyd").await;
    drawn(c, "#fill-chart", 7).await;
    // The index lists the resources booked lately.
    go(c, ts, "#/bookings").await;
    let listed = shows(c, "#resources", "room-2").await;
    assert!(listed.contains("room-1"), "{listed}");
    screenshot(c, kind, "4e-bookings-index").await;
}

/// Jobs by a payload field; a dead letter retried, snoozed and run now from its page.
async fn queues(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    let one = dead_letters(ts, &k.admin, "mail", 1, &["receipt"]).await[0];
    let bulk = dead_letters(ts, &k.admin, "mail", 3, &["newsletter"]).await;
    go(c, ts, "#/queues").await;
    shows(c, "#queues", "mail").await;
    no_null(c).await;
    screenshot(c, kind, "5-queues").await;
    pause_and_resume(c, ts, k).await;
    go(c, ts, "#/queues/mail?payload=%7B%22n%22%3A2%7D").await;
    let by_payload = shows(c, "#jobs", &format!("#{}", bulk[2])).await;
    let rows: Vec<&str> = by_payload.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(rows.len(), 1, "only the job whose payload has n = 2: {by_payload}");
    go(c, ts, "#/queues/mail?state=discarded").await;
    shows(c, "#jobs", &format!("#{}", bulk[2])).await;
    // Four jobs: one page, no "Next page" leading to an empty one.
    absent(c, "#jobs .pager button").await;
    drawn(c, "#queue-chart", 1).await;
    click(c, &format!("a[href='#/jobs/{one}']")).await;
    shows(c, "main", "dead letter").await;
    shows(c, "main", "smtp: 550 mailbox unavailable").await;
    screenshot(c, kind, "6-dead-letter").await;
    click(c, "#retry-job").await;
    shows(c, "#status", "available again").await;
    let job = api(ts, &k.admin, "GET", &format!("/v1/jobs/{one}"), None).await;
    assert_eq!(job["state"], "available", "retried from the page");
    // An operator's snooze of the waiting job, then "run now".
    let snooze = c
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("#snooze-form button[type=submit]"))
        .await
        .unwrap();
    snooze.click().await.unwrap();
    shows(c, "#status", "snoozed for 60 min").await;
    let job = api(ts, &k.admin, "GET", &format!("/v1/jobs/{one}"), None).await;
    assert_eq!(
        (job["state"].as_str(), job["blocked_by"].as_str()),
        (Some("scheduled"), Some("scheduled"))
    );
    click(c, "#run-now").await;
    shows(c, "#status", "will run now").await;
    let job = api(ts, &k.admin, "GET", &format!("/v1/jobs/{one}"), None).await;
    assert_eq!(job["state"], "available");
    bulk_retry(c, ts, k, kind).await;
}

/// Pause the queue from the queues page and resume it: its settings change through the API,
/// and the page says so.
async fn pause_and_resume(c: &Client, ts: &TestServer, k: &Keys) {
    let paused = async || {
        let s = api(ts, &k.admin, "GET", "/v1/queues/mail/settings", None).await;
        s["paused"].as_bool()
    };
    click_at(c, Locator::XPath("//button[.='Pause mail']")).await;
    shows(c, "#status", "Queue mail paused").await;
    assert_eq!(paused().await, Some(true));
    shows(c, "#queues", "paused").await;
    click_at(c, Locator::XPath("//button[.='Resume mail']")).await;
    shows(c, "#status", "Queue mail resumed").await;
    assert_eq!(paused().await, Some(false));
}

/// A bulk retry by filter: counted first, then applied, then on the audit trail with the key.
async fn bulk_retry(c: &Client, ts: &TestServer, k: &Keys, kind: Kind) {
    go(c, ts, "#/queues/mail").await;
    let form = c
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css("#bulk-form"))
        .await
        .unwrap();
    form.find(Locator::Css("select[name=state]"))
        .await
        .unwrap()
        .select_by_value("discarded")
        .await
        .unwrap();
    form.find(Locator::Css("input[name=tag]"))
        .await
        .unwrap()
        .send_keys("newsletter")
        .await
        .unwrap();
    form.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    shows(c, "#bulk-result", "3 jobs match").await;
    let apply = shows(c, "#bulk-apply", "Apply").await;
    assert_eq!(apply, "Apply retry to 3 jobs");
    screenshot(c, kind, "7-bulk-counted").await;
    click(c, "#bulk-apply").await;
    shows(c, "#bulk-result", "3 of 3 matched jobs changed").await;
    // The page's counts follow at once: no stale "discarded 3".
    until(c, "#queue-counts", |t| {
        let t = t.replace('\n', " ");
        t.contains("available 4") && t.contains("discarded 0")
    })
    .await;
    let counts = api(ts, &k.admin, "GET", "/v1/queues/mail", None).await;
    assert_eq!(
        (
            counts["counts"]["available"].as_i64(),
            counts["counts"]["discarded"].as_i64()
        ),
        (Some(4), Some(0))
    );
    go(c, ts, "#/queues/mail?t=audit").await;
    let row = until(c, "#audit", |t| t.contains(&k.admin_id)).await;
    assert!(row.contains("retry") && row.contains("newsletter"), "{row}");
    c.execute("document.getElementById('audit').scrollIntoView();", vec![])
        .await
        .unwrap();
    screenshot(c, kind, "8-bulk-audit").await;
}

/// A key with only read scopes sees the same pages without a button that would act.
async fn read_only(c: &Client, ts: &TestServer, kind: Kind) {
    go(c, ts, "#/stock/TEE-RED-M").await;
    shows(c, "#sku", "sold out").await;
    shows(c, "#holds", "in ").await;
    absent(c, "#holds button").await;
    go(c, ts, "#/queues").await;
    shows(c, "#queues", "mail").await;
    absent(c, "#queues button").await;
    no_null(c).await;
    go(c, ts, "#/queues/mail").await;
    shows(c, "#jobs", "#").await;
    no_null(c).await;
    absent(c, "#bulk-form").await;
    absent(c, "#enqueue-form").await;
    let first = c.find(Locator::Css("#jobs a[href^='#/jobs/']")).await.unwrap();
    first.click().await.unwrap();
    shows(c, "main", "Attempt").await;
    absent(c, "#retry-job").await;
    absent(c, "#cancel-job").await;
    absent(c, "#snooze-form").await;
    absent(c, "#run-now").await;
    screenshot(c, kind, "9-read-only-job").await;
}

/// Another tenant's admin sees none of the first tenant's SKUs, holds or queues.
async fn other_tenant(c: &Client, ts: &TestServer, kind: Kind) {
    go(c, ts, "#/stock").await;
    shows(c, "#sku-list", "No SKU matches").await;
    go(c, ts, "#/stock/TEE-RED-M").await;
    shows(c, "#status", "not_found").await;
    go(c, ts, "#/queues").await;
    shows(c, "#queues", "No queues yet").await;
    go(c, ts, "#/").await;
    let overview = shows(c, "#overview", "Allocations").await;
    assert!(
        overview.contains("Made\n0") || overview.contains("Made 0"),
        "{overview}"
    );
    screenshot(c, kind, "10-other-tenant").await;
}

#[tokio::test]
async fn console_on_sqlite() {
    scenario(Kind::Sqlite).await;
}

#[tokio::test]
async fn console_on_postgres() {
    scenario(Kind::Postgres).await;
}
