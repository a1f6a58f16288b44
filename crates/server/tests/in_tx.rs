//! A hold confirmed or released inside the caller's own transaction on PostgreSQL: reserve
//! over HTTP, then `allot.confirm_hold` / `allot.release_hold` from SQL in the same
//! transaction as the caller's order rows. A rollback leaves the hold held, with no ledger
//! entry and no event; a commit is exactly a confirm through the API (the same answer, the
//! same ledger entries, the same events); the refusals raise their documented SQLSTATEs;
//! a confirm in SQL racing an API confirm, a release and an expiry has one outcome.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{start, Api, Kind, TestServer};
use serde_json::{json, Value};
use std::time::Duration;

/// A session of the test's schema (what an application's own connection is), and the
/// schema the public functions live in (`<schema>_allot`).
async fn session(ts: &TestServer) -> (tokio_postgres::Client, String) {
    let (c, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let fns: String = c
        .query_one("SELECT current_schema() || '_allot'", &[])
        .await
        .unwrap()
        .get(0);
    (c, fns)
}

async fn hold(api: &Api, sku: &str, quantity: i64) -> Value {
    api.ok(
        "/v1/holds",
        json!({"lines": [{"sku": sku, "quantity": quantity}], "ttl_ms": 60_000}),
    )
    .await
}

fn id_of(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

/// The events about `object`, once at least `n` are there (the sequencer numbers them in
/// the background): polled, bounded.
async fn events_of(api: &Api, object: &str, n: usize) -> Vec<Value> {
    for _ in 0..400 {
        let (s, page) = api.get(&format!("/v1/events?after=0&limit=1000&object={object}")).await;
        assert_eq!(s, 200, "{page}");
        let events = page["events"].as_array().unwrap().clone();
        if events.len() >= n {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("fewer than {n} events about {object}");
}

/// The ledger entries of `sku` that `hold` caused, as (kind, delta, held_delta, location).
async fn entries_of(api: &Api, sku: &str, hold: &str) -> Vec<(String, i64, i64, String)> {
    let mut out: Vec<_> = api
        .ledger(sku)
        .await
        .into_iter()
        .filter(|e| e["ref"] == hold)
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["delta"].as_i64().unwrap(),
                e["held_delta"].as_i64().unwrap(),
                e["location"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The SQLSTATE and DETAIL of a refused statement.
fn refusal(e: &tokio_postgres::Error) -> (String, String) {
    let db = e.as_db_error().expect("a database error");
    (
        db.code().code().to_string(),
        db.detail().unwrap_or_default().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rolled_back_stays_held_and_committed_is_an_api_confirm() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("TEE", 10, 1).await;
    let h = hold(&ts, "TEE", 3).await;
    let id = id_of(&h);
    let (mut c, fns) = session(&ts).await;
    c.batch_execute("CREATE TABLE orders (id text PRIMARY KEY, hold_id text NOT NULL)")
        .await
        .unwrap();
    let confirm = format!("SELECT {fns}.confirm_hold($1)");

    // Rolled back: the order and the confirm vanish together.
    let tx = c.transaction().await.unwrap();
    tx.execute("INSERT INTO orders VALUES ('o1', $1)", &[&id])
        .await
        .unwrap();
    let answer: Value = tx.query_one(&confirm, &[&id]).await.unwrap().get(0);
    assert_eq!(answer["status"], "allocated", "{answer}");
    tx.rollback().await.unwrap();
    let (s, now) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!((s, &now["status"]), (200, &json!("held")), "{now}");
    assert_eq!(ts.get(&format!("/v1/allocations/{id}")).await.0, 404);
    assert_eq!(entries_of(&ts, "TEE", &id).await.len(), 1, "the hold's own entry only");
    let sku = ts.sku("TEE").await;
    assert_eq!(
        (sku["on_hand"].as_i64(), sku["held"].as_i64()),
        (Some(10), Some(3)),
        "{sku}"
    );

    // Committed: confirmed with the order, as the API would have.
    let tx = c.transaction().await.unwrap();
    tx.execute("INSERT INTO orders VALUES ('o2', $1)", &[&id])
        .await
        .unwrap();
    let answer: Value = tx.query_one(&confirm, &[&id]).await.unwrap().get(0);
    tx.commit().await.unwrap();
    let (s, stored) = ts.get(&format!("/v1/allocations/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(answer, stored, "the function answers the API's body");
    let orders: i64 = c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0);
    assert_eq!(orders, 1);
    assert_eq!(
        entries_of(&ts, "TEE", &id).await,
        vec![
            ("hold".into(), 0, 3, "default".into()),
            ("hold_confirmed".into(), -3, -3, "default".into())
        ]
    );
    let sku = ts.sku("TEE").await;
    assert_eq!(
        (sku["on_hand"].as_i64(), sku["held"].as_i64()),
        (Some(7), Some(0)),
        "{sku}"
    );
    // Confirm is idempotent, in SQL and over HTTP alike.
    let again: Value = c.query_one(&confirm, &[&id]).await.unwrap().get(0);
    assert_eq!(again, stored);
    assert_eq!(ts.ok(&format!("/v1/holds/{id}/confirm"), json!({})).await, stored);
    let events = events_of(&ts, &id, 4).await;
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["stock.held", "hold.created", "stock.hold_confirmed", "hold.confirmed"],
        "{events:?}"
    );
    assert_eq!(events[3]["data"]["lines"][0]["sku"], "TEE", "{events:?}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// One hold confirmed over HTTP and its twin (on a twin SKU) in SQL: the same answer, ledger
/// entries and events, ids and instants aside.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_confirm_in_sql_equals_one_through_the_api() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("CAP-A", 20, 4).await;
    ts.create_sku("CAP-B", 20, 4).await;
    let (a, b) = (id_of(&hold(&ts, "CAP-A", 5).await), id_of(&hold(&ts, "CAP-B", 5).await));
    let through_api = ts.ok(&format!("/v1/holds/{a}/confirm"), json!({})).await;
    let (c, fns) = session(&ts).await;
    let in_sql: Value = c
        .query_one(&format!("SELECT {fns}.confirm_hold($1, 'default')"), &[&b])
        .await
        .unwrap()
        .get(0);
    let strip = |v: &Value| -> String {
        let mut v = v.clone();
        for k in ["id", "created_at", "ref", "at", "ledger_id", "expires_at"] {
            v.as_object_mut().map(|o| o.remove(k));
        }
        v.to_string().replace("CAP-B", "CAP-A")
    };
    assert_eq!(strip(&through_api), strip(&in_sql));
    let (ea, eb) = (entries_of(&ts, "CAP-A", &a).await, entries_of(&ts, "CAP-B", &b).await);
    assert_eq!(ea, eb);
    let kinds = |events: Vec<Value>| -> Vec<(String, String)> {
        events
            .into_iter()
            .map(|e| (e["type"].as_str().unwrap().to_string(), strip(&e["data"])))
            .collect()
    };
    let (va, vb) = (events_of(&ts, &a, 4).await, events_of(&ts, &b, 4).await);
    assert_eq!(kinds(va), kinds(vb));
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refusals_raise_their_sqlstates() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("MUG", 10, 1).await;
    let (c, fns) = session(&ts).await;
    let (confirm, release) = (
        format!("SELECT {fns}.confirm_hold($1)"),
        format!("SELECT {fns}.release_hold($1)"),
    );
    let refused = async |sql: &str, id: &str| refusal(&c.query_one(sql, &[&id]).await.unwrap_err());

    assert_eq!(
        refused(&confirm, "no-such-hold").await,
        ("AL010".into(), "not_found".into())
    );
    assert_eq!(refused(&confirm, "").await.0, "22023");
    let other_tenant = c
        .query_one(&format!("SELECT {fns}.confirm_hold('x', 'bad tenant')"), &[])
        .await
        .unwrap_err();
    assert_eq!(refusal(&other_tenant).0, "22023");

    // Expired before the confirm ran (its expiry moved into the database's past).
    let expired = id_of(&hold(&ts, "MUG", 1).await);
    c.execute(
        "UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = $1",
        &[&expired],
    )
    .await
    .unwrap();
    assert_eq!(
        refused(&confirm, &expired).await,
        ("AL011".into(), "hold_expired".into())
    );
    // Released, then confirmed: refused; a confirmed hold's release: refused.
    let released = id_of(&hold(&ts, "MUG", 1).await);
    ts.ok(&format!("/v1/holds/{released}/release"), json!({})).await;
    assert_eq!(
        refused(&confirm, &released).await,
        ("AL012".into(), "hold_released".into())
    );
    let confirmed = id_of(&hold(&ts, "MUG", 1).await);
    ts.ok(&format!("/v1/holds/{confirmed}/confirm"), json!({})).await;
    assert_eq!(
        refused(&release, &confirmed).await,
        ("AL013".into(), "hold_confirmed".into())
    );
    // The expired one released in SQL finishes as expired; a release in SQL answers the
    // API's body.
    let body: Value = c.query_one(&release, &[&expired]).await.unwrap().get(0);
    assert_eq!(body["status"], "expired", "{body}");
    let fresh = id_of(&hold(&ts, "MUG", 2).await);
    let body: Value = c.query_one(&release, &[&fresh]).await.unwrap().get(0);
    let (_, stored) = ts.get(&format!("/v1/holds/{fresh}")).await;
    assert_eq!(body, stored);
    assert_eq!(stored["status"], "released");
    let sku = ts.sku("MUG").await;
    assert_eq!(
        (sku["on_hand"].as_i64(), sku["held"].as_i64()),
        (Some(9), Some(0)),
        "{sku}"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// How one contender of a race ended: `Ok` with its answer, or refused with its code.
type Outcome = Result<Value, String>;

/// A confirm in SQL (in a transaction that also writes an order), a confirm and a release
/// over HTTP, all at once on one hold: either it is confirmed (every confirm that answered
/// answered the same allocation, the release was refused, the order exists) or released
/// (both confirms refused, no order).
async fn race(ts: &TestServer, id: String) -> (Outcome, Outcome, Outcome) {
    let (mut c, fns) = session(ts).await;
    let sql = tokio::spawn({
        let id = id.clone();
        async move {
            let tx = c.transaction().await.unwrap();
            match tx.query_one(&format!("SELECT {fns}.confirm_hold($1)"), &[&id]).await {
                Ok(row) => {
                    tx.execute("INSERT INTO orders VALUES ($1, $1)", &[&id]).await.unwrap();
                    tx.commit().await.unwrap();
                    Ok(row.get::<_, Value>(0))
                }
                Err(e) => Err(refusal(&e).1),
            }
        }
    });
    let call = |path: String| {
        let api = ts.api.clone();
        tokio::spawn(async move {
            let (s, b) = api.post(&path, json!({})).await;
            if s == 200 {
                Ok(b)
            } else {
                Err(b["error"]["code"].as_str().unwrap_or_default().to_string())
            }
        })
    };
    let api_confirm = call(format!("/v1/holds/{id}/confirm"));
    let api_release = call(format!("/v1/holds/{id}/release"));
    (
        sql.await.unwrap(),
        api_confirm.await.unwrap(),
        api_release.await.unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_confirm_in_sql_racing_the_api_has_one_outcome() {
    let ts = start(Kind::Postgres).await;
    const ROUNDS: i64 = 24;
    ts.create_sku("SEAT", ROUNDS, 1).await;
    let (c, _) = session(&ts).await;
    c.batch_execute("CREATE TABLE orders (id text PRIMARY KEY, hold_id text NOT NULL)")
        .await
        .unwrap();
    let mut confirmed = 0;
    for round in 0..ROUNDS {
        let h = hold(&ts, "SEAT", 1).await;
        // The second half: the server's clock is past the hold's expiry (the API's release
        // is its expiry), the database's is not (the SQL confirm may still win).
        if round >= ROUNDS / 2 {
            ts.advance_past(&h["expires_at"]);
        }
        let id = id_of(&h);
        let (sql, api_confirm, api_release) = race(&ts, id.clone()).await;
        let (_, now) = ts.get(&format!("/v1/holds/{id}")).await;
        let ordered: i64 = c
            .query_one("SELECT count(*) FROM orders WHERE id = $1", &[&id])
            .await
            .unwrap()
            .get(0);
        let answers = [&sql, &api_confirm];
        match now["status"].as_str().unwrap() {
            "confirmed" => {
                confirmed += 1;
                assert_eq!(api_release, Err("hold_confirmed".into()), "round {round}");
                let ok: Vec<&Value> = answers.iter().filter_map(|a| a.as_ref().ok()).collect();
                assert!(!ok.is_empty(), "round {round}: confirmed by no one");
                let (_, stored) = ts.get(&format!("/v1/allocations/{id}")).await;
                assert!(ok.iter().all(|a| **a == stored), "round {round}: {ok:?} vs {stored}");
                assert_eq!(ordered, i64::from(sql.is_ok()), "round {round}");
            }
            status @ ("released" | "expired") => {
                assert!(api_release.is_ok(), "round {round}: {status} by no release");
                for a in answers {
                    let code = a.as_ref().err().map(String::as_str);
                    assert!(
                        matches!(code, Some("hold_released" | "hold_expired")),
                        "round {round}: {a:?}"
                    );
                }
                assert_eq!(ordered, 0, "round {round}");
            }
            other => panic!("round {round}: the hold is {other}"),
        }
        let finishing: Vec<_> = entries_of(&ts, "SEAT", &id)
            .await
            .into_iter()
            .filter(|e| e.0 != "hold")
            .collect();
        assert_eq!(finishing.len(), 1, "round {round}: finished once: {finishing:?}");
    }
    let sku = ts.sku("SEAT").await;
    assert_eq!(sku["on_hand"].as_i64(), Some(ROUNDS - confirmed), "{sku}");
    assert_eq!(sku["held"].as_i64(), Some(0), "{sku}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// Whether a backend of the test's database waits on a lock (the signal the tests wait on
/// instead of sleeping).
async fn someone_waits(c: &tokio_postgres::Client) -> bool {
    let n: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    n > 0
}

/// A hold's booking on a resource with slots (capacity 1), confirmed in SQL on the database's
/// clock, before its expiry, while a booking over the same slot comes through the API on a
/// clock past that expiry. The booking reads the hold's booking as overdue and leaves it out,
/// but must expire it, under its row's lock, before it writes: it waits for the confirm and
/// then counts the confirmed booking (`409 capacity_exceeded`). It never books the slot twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_confirm_in_sql_at_the_expiry_edge_never_double_books() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("TEE", 10, 1).await;
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/hall",
            json!({"capacity": 1, "slot_ms": 3_600_000}),
        )
        .await;
    assert!(s == 200 || s == 201, "{b}");
    let slot = ("2031-05-01T10:00:00Z", "2031-05-01T11:00:00Z");
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "TEE", "quantity": 1},
                             {"booking": {"resource": "hall", "start": slot.0, "end": slot.1}}],
                   "ttl_ms": 60_000}),
        )
        .await;
    let id = id_of(&h);
    let (mut c, fns) = session(&ts).await;
    let tx = c.transaction().await.unwrap();
    let answer: Value = tx
        .query_one(&format!("SELECT {fns}.confirm_hold($1)"), &[&id])
        .await
        .unwrap()
        .get(0);
    assert_eq!(answer["status"], "allocated", "{answer}");
    // The server's clock (not the database's) is now past the hold's expiry.
    ts.advance_past(&h["expires_at"]);
    let booking = tokio::spawn({
        let api = ts.api.clone();
        async move {
            api.post(
                "/v1/resources/hall/bookings",
                json!({"start": slot.0, "end": slot.1, "holder": "walk-in"}),
            )
            .await
        }
    });
    let (watch, _) = session(&ts).await;
    for _ in 0..500 {
        if booking.is_finished() || someone_waits(&watch).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tx.commit().await.unwrap();
    let (s, b) = booking.await.unwrap();
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("capacity_exceeded")),
        "the slot is the confirmed hold's: {b}"
    );
    let (_, booked) = ts
        .get(&format!("/v1/bookings/{}", h["bookings"][0]["id"].as_str().unwrap()))
        .await;
    assert_eq!(booked["status"], "confirmed", "{booked}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// The lock order of a confirm against a new hold: a new hold locks its stock rows, then
/// (a booking line finding a booking of another hold past its expiry) that booking's row, to
/// expire it. Played here by a session that locks the tee's row and then expires the hold's
/// booking, while `allot.confirm_hold` of that hold runs: the confirm locks the hold's stock
/// rows before its bookings, so it waits for the session, then finds its booking expired and
/// refuses (`AL011`, `hold_expired`). No deadlock (40P01) reaches either.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_confirm_in_sql_takes_stock_rows_before_bookings() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("TEE", 10, 1).await;
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "TEE", "quantity": 1},
                             {"booking": {"resource": "bay", "start": "2031-05-01T10:00:00Z",
                                          "end": "2031-05-01T11:00:00Z"}}],
                   "ttl_ms": 60_000}),
        )
        .await;
    let id = id_of(&h);
    let (mut new_hold, _) = session(&ts).await;
    let lock = new_hold.transaction().await.unwrap();
    lock.execute("SELECT 1 FROM stock WHERE sku = 'TEE' FOR UPDATE", &[])
        .await
        .unwrap();
    let (mut c, fns) = session(&ts).await;
    let confirm = tokio::spawn(async move {
        let tx = c.transaction().await.unwrap();
        let out = tx
            .query_one(&format!("SELECT {fns}.confirm_hold($1)"), &[&id])
            .await
            .map(|r| r.get::<_, Value>(0))
            .map_err(|e| refusal(&e));
        drop(tx);
        out
    });
    let (watch, _) = session(&ts).await;
    for _ in 0..500 {
        if confirm.is_finished() || someone_waits(&watch).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // What a booking line past the hold's expiry does to the hold's booking.
    let expired = lock
        .execute(
            "UPDATE bookings SET status = 'expired', status_at = now() WHERE hold_id = $1 AND status = 'held'",
            &[&id_of(&h)],
        )
        .await
        .expect("no deadlock: the confirm holds no booking row while it waits for the stock");
    assert_eq!(expired, 1);
    lock.commit().await.unwrap();
    assert_eq!(
        confirm.await.unwrap(),
        Err(("AL011".to_string(), "hold_expired".to_string()))
    );
    ts.finish().await;
}

/// A mixed hold (stock, a unit, a booking) confirmed in SQL from a session whose
/// `search_path` lacks allot's schema (an application's own connection need not name it):
/// the function and the deferred triggers that write the hold's event at the commit run with
/// their own search_path, so the commit confirms every line and writes every event.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mixed_hold_confirms_in_sql_from_a_session_without_allots_schema() {
    let ts = start(Kind::Postgres).await;
    ts.create_sku("TEE", 10, 1).await;
    let seat = json!({"units": [{"serial": "A12"}, {"serial": "A13"}]});
    assert_eq!(ts.post("/v1/skus/SEAT/units", seat).await.0, 201);
    let body = json!({"lines": [
        {"sku": "TEE", "quantity": 1},
        {"units": {"sku": "SEAT", "quantity": 1, "serials": ["A12"]}},
        {"booking": {"resource": "bay-7", "start": "2031-05-01T18:00:00Z", "end": "2031-05-01T23:00:00Z"}}
    ], "ttl_ms": 60_000});
    let h = ts.ok("/v1/holds", body).await;
    let (id, bid) = (id_of(&h), h["bookings"][0]["id"].as_str().unwrap().to_string());
    let (mut c, fns) = session(&ts).await;
    c.batch_execute("SET search_path TO pg_catalog").await.unwrap();
    let confirm = format!("SELECT {fns}.confirm_hold($1)");
    // Rolled back: every line still held, no entry and no event of the confirm.
    let tx = c.transaction().await.unwrap();
    let answer: Value = tx.query_one(&confirm, &[&id]).await.unwrap().get(0);
    assert_eq!(answer["status"], "allocated", "{answer}");
    tx.rollback().await.unwrap();
    let (_, still) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!(
        (
            &still["status"],
            &still["bookings"][0]["status"],
            &still["units"][0]["serial"]
        ),
        (&json!("held"), &json!("held"), &json!("A12")),
        "{still}"
    );
    let (_, units) = ts.get("/v1/skus/SEAT/units").await;
    assert_eq!(
        units["units"][0]["status"], "held",
        "A12 (the first by id) still held: {units}"
    );
    assert_eq!(entries_of(&ts, "TEE", &id).await.len(), 1, "the hold's own entry only");
    let tx = c.transaction().await.unwrap();
    let answer: Value = tx.query_one(&confirm, &[&id]).await.unwrap().get(0);
    assert_eq!(answer["status"], "allocated", "{answer}");
    tx.commit().await.unwrap();
    let (_, done) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!(done["status"], "confirmed", "{done}");
    assert_eq!(done["bookings"][0]["status"], "confirmed", "{done}");
    let (_, units) = ts.get("/v1/skus/SEAT/units").await;
    let allocated: Vec<&str> = units["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["status"] == "allocated")
        .map(|u| u["serial"].as_str().unwrap())
        .collect();
    assert_eq!(allocated, ["A12"], "{units}");
    let events = events_of(&ts, &id, 4).await;
    let confirmed: Vec<&Value> = events.iter().filter(|e| e["type"] == "hold.confirmed").collect();
    assert_eq!(confirmed.len(), 1, "{events:?}");
    let data = &confirmed[0]["data"];
    assert_eq!(
        (&data["kind"], &data["bookings"][0]["id"]),
        (&json!("mixed"), &json!(bid)),
        "{data}"
    );
    let booked = events_of(&ts, &bid, 2).await;
    let types: Vec<&str> = booked.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["booking.created", "booking.confirmed"], "{booked:?}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}
