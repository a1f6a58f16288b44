//! The audit is shown to fail: on each backend, rows are broken on purpose with direct SQL, one
//! invariant at a time, and both `GET /v1/audit` and `allot audit` (exit code 1) must report
//! exactly the new finding. `naive` under load must be caught overselling.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

#[path = "../../server/tests/common/mod.rs"]
mod common;

use common::{Kind, TestServer};
use serde_json::{json, Value};

/// Run SQL on the test server's own database, outside allot. On PostgreSQL the CHECKs that
/// would refuse a broken bucket are dropped (the schema is the test's own); on SQLite the
/// connection ignores them.
async fn sql(ts: &TestServer, stmts: &str) {
    match ts.kind {
        Kind::Postgres => {
            let (c, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            c.batch_execute(stmts)
                .await
                .unwrap_or_else(|e| panic!("{stmts}: {e:?}"));
        }
        Kind::Sqlite => {
            let path = ts.database_url.strip_prefix("sqlite://").unwrap().to_string();
            let stmts = stmts.to_string();
            tokio::task::spawn_blocking(move || {
                let c = rusqlite::Connection::open(path).unwrap();
                c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
                c.execute_batch("PRAGMA ignore_check_constraints = ON").unwrap();
                c.execute_batch(&stmts).unwrap_or_else(|e| panic!("{stmts}: {e:?}"));
            })
            .await
            .unwrap();
        }
    }
}

/// `GET /v1/audit` and `allot audit`: the HTTP report and the CLI's exit code and output.
async fn audit(ts: &TestServer) -> (Value, i32, String) {
    let (s, report) = ts.get("/v1/audit").await;
    assert_eq!(s, 200, "{report}");
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
        .args(["audit", "--database-url", &ts.database_url])
        .env_remove("ALLOT_DATABASE_URL")
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (report, out.status.code().unwrap_or(-1), text)
}

/// Every finding of a report as one line each (SKU and unit claims, jobs, bookings).
fn findings(r: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for v in r["violations"].as_array().unwrap() {
        out.push(format!(
            "{}: {}",
            v["sku"].as_str().unwrap(),
            v["problem"].as_str().unwrap()
        ));
    }
    for v in r["job_violations"].as_array().unwrap() {
        out.push(format!("job {}: {}", v["id"], v["problem"].as_str().unwrap()));
    }
    for o in r["booking_overlaps"].as_array().unwrap() {
        out.push(format!(
            "resource {}: {} {}",
            o["resource"].as_str().unwrap(),
            o["first"],
            o["second"]
        ));
    }
    out
}

/// The objects whose books the per-object rules prove: an allocation with a sellable return,
/// a confirmed hold, a transfer, and a confirmed hold with a booking line.
struct Books {
    allocation: String,
    hold: String,
    transfer: String,
    mixed: String,
}

async fn books_setup(ts: &TestServer) -> Books {
    ts.create_sku("RET", 10, 1).await;
    ts.create_sku("HC", 10, 1).await;
    ts.create_sku("TR", 10, 1).await;
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let allocation = id(ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "RET", "quantity": 3}]}))
        .await);
    let back = json!({"lines": [{"sku": "RET", "quantity": 1}]});
    ts.ok(&format!("/v1/allocations/{allocation}/returns"), back).await;
    let hold = id(ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "HC", "quantity": 2}], "ttl_ms": 3_600_000}),
        )
        .await);
    ts.ok(&format!("/v1/holds/{hold}/confirm"), json!({})).await;
    ts.ok("/v1/locations", json!({"location": "WH2", "priority": 1})).await;
    let transfer = id(ts
        .ok(
            "/v1/transfers",
            json!({"sku": "TR", "from": "default", "to": "WH2", "quantity": 2}),
        )
        .await);
    let booking =
        json!({"booking": {"resource": "BAY", "start": "2026-05-01T10:00:00Z", "end": "2026-05-01T11:00:00Z"}});
    let mixed = id(ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "TR", "quantity": 1}, booking], "ttl_ms": 3_600_000}),
        )
        .await);
    ts.ok(&format!("/v1/holds/{mixed}/confirm"), json!({})).await;
    Books {
        allocation,
        hold,
        transfer,
        mixed,
    }
}

/// Breaks behind the audit's per-SKU rules: each writes a ledger entry together with the
/// stock it moves, so on_hand (in total and per location) still equals the ledger's sum; only
/// the rules per object can name what was broken.
fn book_breaks(kind: Kind, b: &Books) -> Vec<(String, String, usize)> {
    let at = if kind == Kind::Postgres { "at" } else { "at_us" };
    let copy = |filter: String, held: &str| {
        format!(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, {at})
             SELECT tenant, sku, delta, {held}, kind, ref, actor, location, {at} FROM ledger WHERE {filter}"
        )
    };
    let (a, h, t, m) = (&b.allocation, &b.hold, &b.transfer, &b.mixed);
    vec![
        // A duplicated sellable return: one unit made out of nothing.
        (
            format!(
                "{}; UPDATE stock SET on_hand = on_hand + 1 WHERE sku = 'RET'",
                copy(format!("kind = 'returned' AND ref = '{a}'"), "held_delta")
            ),
            format!("RET: allocation {a}: its returned entries give back 2 but its sellable returns say 1"),
            1,
        ),
        // A confirm taken twice from on_hand but un-held once: the hold and its allocation.
        (
            format!(
                "{}; UPDATE stock SET on_hand = on_hand - 2 WHERE sku = 'HC'",
                copy(format!("kind = 'hold_confirmed' AND ref = '{h}'"), "0")
            ),
            format!("HC: hold {h}: a confirm took 4 from on_hand but stopped holding 2"),
            2,
        ),
        // The receiving side of a transfer written twice: two units made at WH2.
        (
            format!(
                "{}; UPDATE stock SET on_hand = on_hand + 2 WHERE sku = 'TR' AND location = 'WH2'",
                copy(format!("kind = 'transfer' AND ref = '{t}' AND delta > 0"), "held_delta")
            ),
            format!("TR: transfer {t}: 3 entries"),
            1,
        ),
        // A confirmed hold's booking put back to held behind its back.
        (
            format!("UPDATE bookings SET status = 'held' WHERE hold_id = '{m}'"),
            format!("BAY: hold {m}: its booking "),
            1,
        ),
    ]
}

/// What the breaks need: a SKU, a held SKU, a segmented SKU, two unit claims, a booking and a
/// job that failed its first attempt. Returns (hold id, claim A, claim B, booking id, job id).
async fn setup(ts: &TestServer) -> (String, String, String, String, i64) {
    ts.create_sku("OFF", 10, 1).await;
    ts.create_sku("HELD", 10, 1).await;
    ts.create_sku("SEG", 10, 2).await;
    let hold = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "HELD", "quantity": 2}], "ttl_ms": 3_600_000}),
        )
        .await;
    let units: Vec<Value> = (0..4).map(|i| json!({"serial": format!("S{i}")})).collect();
    ts.ok("/v1/skus/U/units", json!({ "units": units })).await;
    let a = ts.ok("/v1/unit-allocations", json!({"sku": "U", "quantity": 2})).await;
    let b = ts.ok("/v1/unit-allocations", json!({"sku": "U", "quantity": 2})).await;
    let booking = ts
        .ok(
            "/v1/resources/R/bookings",
            json!({"start": "2026-05-01T10:00:00Z", "end": "2026-05-01T11:00:00Z", "holder": "h"}),
        )
        .await;
    let job = ts.ok("/v1/queues/q/jobs", json!({"jobs": [{"payload": {}}]})).await["ids"][0]
        .as_i64()
        .unwrap();
    let claimed = ts
        .ok(
            "/v1/queues/q/claims",
            json!({"max": 1, "lease_ms": 60_000, "worker": "w"}),
        )
        .await;
    let token = claimed["jobs"][0]["lease_token"].clone();
    ts.ok(
        &format!("/v1/jobs/{job}/fail"),
        json!({"lease_token": token, "error": "boom", "retry_in_ms": 3_600_000}),
    )
    .await;
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    (id(&hold), id(&a), id(&b), id(&booking), job)
}

/// The SQL of each break, per backend, and what its finding must say.
fn breaks(kind: Kind, hold: &str, a: &str, b: &str, booking: &str, job: i64) -> Vec<(String, String)> {
    let pg = kind == Kind::Postgres;
    let drop_checks = if pg {
        "DO $$ DECLARE c text; BEGIN
           FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'stock'::regclass AND contype = 'c' LOOP
             EXECUTE format('ALTER TABLE stock DROP CONSTRAINT %I', c);
           END LOOP; END $$;"
    } else {
        ""
    };
    let overlap = if pg {
        format!(
            "INSERT INTO bookings (tenant, id, resource, during, holder, status, strategy, created_at)
             SELECT tenant, 'overlap', resource, during, 'x', 'confirmed', 'naive', created_at FROM bookings WHERE id = '{booking}'"
        )
    } else {
        format!(
            "INSERT INTO bookings (tenant, id, resource, start_us, end_us, holder, status, strategy, created_at_us)
             SELECT tenant, 'overlap', resource, start_us + 1, end_us, 'x', 'confirmed', 'naive', created_at_us FROM bookings WHERE id = '{booking}'"
        )
    };
    let finalized = if pg {
        "finalized_at = now()"
    } else {
        "finalized_at_us = 1"
    };
    vec![
        ("UPDATE stock SET on_hand = on_hand + 1 WHERE sku = 'OFF'".into(), "OFF: on_hand 11 != ledger sum 10".into()),
        // Stock moved between locations without its ledger entries: the totals agree, both
        // locations do not.
        ("UPDATE stock SET location = 'elsewhere' WHERE sku = 'SEG' AND bucket = 1".into(), "SEG: at ".into()),
        (format!("UPDATE holds SET status = 'released' WHERE id = '{hold}'"), "HELD: held 2 != quantity of active holds 0".into()),
        (
            format!("{drop_checks} UPDATE stock SET held = held - 1 WHERE sku = 'SEG' AND bucket = 0; UPDATE stock SET held = held + 1 WHERE sku = 'SEG' AND bucket = 1"),
            "SEG: a bucket has negative held (-1)".into(),
        ),
        (overlap, "resource R:".into()),
        (
            format!("UPDATE units SET claim_id = '{b}' WHERE id = (SELECT min(id) FROM units WHERE claim_id = '{a}')"),
            format!("U: claim {a}: ledger says 2 allocated and 0 held, units say 1 allocated and 0 held"),
        ),
        (
            format!("UPDATE jobs SET state = 'completed', {finalized} WHERE id = {job}"),
            format!("job {job}: attempt 1 both failed and completed"),
        ),
    ]
}

async fn each_break_is_reported(kind: Kind) {
    let ts = common::start(kind).await;
    let (hold, a, b, booking, job) = setup(&ts).await;
    let (report, code, text) = audit(&ts).await;
    assert_eq!(
        (findings(&report), code),
        (Vec::<String>::new(), 0),
        "clean before: {text}"
    );
    assert!(
        text.contains("0 violations, 0 job violations, 0 overlapping bookings"),
        "{text}"
    );
    let mut seen = 0;
    let books = books_setup(&ts).await;
    let (report, code, text) = audit(&ts).await;
    assert_eq!((findings(&report), code), (Vec::<String>::new(), 0), "clean: {text}");
    for (stmt, want, n) in book_breaks(kind, &books) {
        sql(&ts, &stmt).await;
        let (report, code, text) = audit(&ts).await;
        let found = findings(&report);
        assert!(
            found.iter().any(|f| f.starts_with(&want)),
            "{stmt}\nwanted {want}\nfound {found:#?}"
        );
        seen += n;
        assert_eq!(found.len(), seen, "exactly the new finding(s) after {stmt}: {found:#?}");
        assert!(
            report["skus_checked"].as_u64() > Some(0) && found.iter().all(|f| !f.contains("ledger sum")),
            "on_hand still equals the ledger: {found:#?}"
        );
        assert_eq!(code, 1, "allot audit exits 1 after {stmt}: {text}");
        assert!(
            text.contains(want.split_once(": ").unwrap().1),
            "allot audit prints it: {text}"
        );
    }
    for (stmt, want) in breaks(kind, &hold, &a, &b, &booking, job) {
        sql(&ts, &stmt).await;
        let (report, code, text) = audit(&ts).await;
        let found = findings(&report);
        let new: Vec<&String> = found.iter().filter(|f| f.starts_with(&want)).collect();
        assert!(!new.is_empty(), "{stmt}\nwanted {want}\nfound {found:#?}");
        // A unit in two claims leaves one short and the other over, on hand off at a location
        // breaks the SKU's total and its location's, stock moved between locations breaks
        // both locations: two findings each. A hold released behind allot's back is also a
        // hold whose books (held, nothing released) disagree with its status: two more.
        let two = want.starts_with("U: claim") || want.starts_with("OFF") || want.starts_with("SEG: at");
        let expect = seen
            + if want.starts_with("HELD") {
                3
            } else if two {
                2
            } else {
                1
            };
        assert_eq!(
            found.len(),
            expect,
            "exactly the new finding(s) after {stmt}: {found:#?}"
        );
        seen = expect;
        assert_eq!(code, 1, "allot audit exits 1 after {stmt}: {text}");
        let cli_line = want.split_once(": ").map(|(_, p)| p.to_string()).unwrap_or_default();
        assert!(
            text.contains(cli_line.trim_end_matches(':')),
            "allot audit prints it: {text}"
        );
    }
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_each_break_is_reported() {
    each_break_is_reported(Kind::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_each_break_is_reported() {
    each_break_is_reported(Kind::Sqlite).await;
}

/// `naive` reads, then writes an absolute value: under load it loses updates, and the audit
/// must say so (on_hand no longer the ledger's sum). Bounded: at most 5 rounds of 200 buyers.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn naive_under_load_is_caught_by_the_audit() {
    let ts = common::start_with(Kind::Postgres, |c| c.allow_unsafe_strategies = true).await;
    let (report, code, _) = audit(&ts).await;
    assert_eq!((findings(&report).len(), code), (0, 0));
    let mut caught = None;
    for round in 0..5 {
        let sku = format!("NAIVE{round}");
        ts.create_sku(&sku, 50, 1).await;
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..200 {
            let (api, sku) = (ts.api.clone(), sku.clone());
            set.spawn(async move {
                let body = json!({"lines": [{"sku": sku, "quantity": 1}], "strategy": "naive"});
                api.post("/v1/allocations", body).await
            });
        }
        let mut ok = 0;
        while let Some(r) = set.join_next().await {
            let (s, b) = r.unwrap();
            assert!(s == 201 || s == 409, "{s} {b}");
            ok += i64::from(s == 201);
        }
        let on_hand = ts.sku(&sku).await["on_hand"].as_i64().unwrap();
        if on_hand != 50 - ok {
            caught = Some((sku, ok, on_hand));
            break;
        }
    }
    let (sku, ok, on_hand) = caught.expect("naive never lost an update in 5 rounds of 200 concurrent buyers");
    let (report, code, text) = audit(&ts).await;
    let want = format!("{sku}: on_hand {on_hand} != ledger sum {}", 50 - ok);
    assert!(findings(&report).contains(&want), "{want} in {report}");
    assert_eq!(code, 1, "{text}");
    ts.finish().await;
}

/// A capacity-3 resource in a pool of 4: filled through the API the audit is clean; a
/// booking put into a full night behind allot's back is found, on the resource's slot and
/// the pool's, by `GET /v1/audit` and by `allot audit`. A capacity lowered below what a night
/// holds (a stop-sell) is not a finding: what was sold stands.
async fn an_overbooked_slot_is_reported(kind: Kind) {
    let ts = common::start(kind).await;
    let ok = |s: u16, b: &Value| assert_eq!(s, 200, "{b}");
    let (s, b) = ts
        .send_json("PUT", "/v1/pools/hall", json!({"capacity": 4, "slot_ms": 86_400_000}))
        .await;
    ok(s, &b);
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/double",
            json!({"capacity": 3, "slot_ms": 86_400_000, "pools": ["hall"]}),
        )
        .await;
    ok(s, &b);
    let night = json!({"start": "2030-03-01T00:00:00Z", "end": "2030-03-02T00:00:00Z", "holder": "h", "quantity": 3});
    let (s, first) = ts.post("/v1/resources/double/bookings", night.clone()).await;
    assert_eq!(s, 201, "{first}");
    // Stop-sell on a night already sold: no finding.
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/double/slots",
            json!({"from": "2030-03-01T00:00:00Z", "to": "2030-03-02T00:00:00Z", "capacity": 0}),
        )
        .await;
    ok(s, &b);
    assert_eq!(b["slots"][0]["used"], 3, "{b}");
    let (report, code, text) = audit(&ts).await;
    assert_eq!((report["slot_overbookings"].clone(), code), (json!([]), 0), "{text}");
    assert!(report["slots_checked"].as_u64().unwrap() >= 2, "{report}");
    let id = first["id"].as_str().unwrap();
    let copy = if kind == Kind::Postgres {
        format!(
            "INSERT INTO bookings (tenant, id, resource, during, holder, status, strategy, created_at, quantity, slotted, counted)
             SELECT tenant, 'behind', resource, during, 'x', 'confirmed', strategy, created_at + interval '1 hour', 2, true, true
               FROM bookings WHERE id = '{id}'"
        )
    } else {
        format!(
            "INSERT INTO bookings (tenant, id, resource, start_us, end_us, holder, status, strategy, created_at_us, quantity, slotted)
             SELECT tenant, 'behind', resource, start_us, end_us, 'x', 'confirmed', strategy, created_at_us + 3600000000, 2, 1
               FROM bookings WHERE id = '{id}'"
        )
    };
    sql(&ts, &copy).await;
    let (report, code, text) = audit(&ts).await;
    let found = report["slot_overbookings"].as_array().unwrap().clone();
    assert_eq!(code, 1, "{text}");
    assert_eq!(found.len(), 2, "the resource's night and the pool's: {report}");
    assert!(
        found
            .iter()
            .any(|f| f["resource"] == "double" && f["booked"] == 5 && f["capacity"] == 0),
        "{report}"
    );
    assert!(
        found
            .iter()
            .any(|f| f["pool"] == "hall" && f["booked"] == 5 && f["capacity"] == 4),
        "{report}"
    );
    assert!(
        text.contains("over capacity") && text.contains("resource double"),
        "{text}"
    );
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_an_overbooked_slot_is_reported() {
    an_overbooked_slot_is_reported(Kind::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_an_overbooked_slot_is_reported() {
    an_overbooked_slot_is_reported(Kind::Sqlite).await;
}
