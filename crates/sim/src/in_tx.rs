//! A `+sql` target's hold confirms and releases, run the way an application runs them inside
//! its own transaction (issue 57): `BEGIN`, an order row of its own, the SQL function, then
//! `COMMIT` — or `ROLLBACK` when the function refused, as the application would. It calls
//! `allot_confirm_hold_at` / `allot_release_hold_at`, the bodies of `allot.confirm_hold` /
//! `allot.release_hold`, with the simulation's clock (the public functions read the
//! database's, which the simulation does not move). The answer becomes the API's: the body on
//! success (200), the refusal's `DETAIL` as the error code (404 `not_found`, 409 otherwise), so
//! the run compares it with the model and with every target that went over HTTP.

use crate::ops::Op;
use crate::SimError;
use serde_json::{json, Value};

/// The caller's own connection to the target's database.
pub struct Caller {
    client: tokio::sync::Mutex<tokio_postgres::Client>,
    /// Operations run in the caller's transaction so far (committed or rolled back).
    pub ran: std::sync::atomic::AtomicU64,
}

impl Caller {
    /// Connect to `url` (the target's database) and make the orders table.
    pub async fn connect(url: &str) -> Result<Caller, SimError> {
        let failed = |e: tokio_postgres::Error| SimError::Setup(format!("the caller's connection: {e}"));
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(failed)?;
        tokio::spawn(conn);
        client
            .batch_execute("CREATE TABLE IF NOT EXISTS sim_orders (n bigserial PRIMARY KEY, hold_id text NOT NULL)")
            .await
            .map_err(failed)?;
        Ok(Caller {
            client: tokio::sync::Mutex::new(client),
            ran: Default::default(),
        })
    }

    /// Run `op` on hold `id` at `now` in a transaction of the caller's, when it is a whole
    /// confirm or a release of the default tenant without an idempotency key (what the SQL
    /// functions do): the API's status and body; `None` for any other op.
    pub async fn step(
        &self,
        op: &Op,
        id: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<(u16, Value)>, SimError> {
        let function = match op {
            Op::Confirm {
                part: None, key: None, ..
            } => "allot_confirm_hold_at",
            Op::Release { key: None, .. } => "allot_release_hold_at",
            _ => return Ok(None),
        };
        let failed = |e: tokio_postgres::Error| SimError::Setup(format!("the caller's transaction: {e}"));
        self.ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut client = self.client.lock().await;
        let tx = client.transaction().await.map_err(failed)?;
        tx.execute("INSERT INTO sim_orders (hold_id) VALUES ($1)", &[&id])
            .await
            .map_err(failed)?;
        let sql = format!("SELECT {function}('default', $1, $2, NULL)");
        match tx.query_one(&sql, &[&id, &now]).await {
            Ok(row) => {
                tx.commit().await.map_err(failed)?;
                Ok(Some((200, row.get(0))))
            }
            Err(e) => {
                let Some(refused) = e.as_db_error().filter(|d| d.code().code().starts_with("AL01")) else {
                    return Err(failed(e));
                };
                let code = refused.detail().unwrap_or_default().to_string();
                tx.rollback().await.map_err(failed)?;
                let status = if code == "not_found" { 404 } else { 409 };
                Ok(Some((status, json!({"error": {"code": code}}))))
            }
        }
    }
}
