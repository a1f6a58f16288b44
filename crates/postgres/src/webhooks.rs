//! Webhook endpoints on PostgreSQL (V17), and each tenant's hand-over cursor: how far its
//! feed was turned into delivery jobs. The deliveries themselves are jobs of
//! [`allot_core::webhook::DELIVERY_TENANT`], made by the server's dispatcher.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::tenant::Tenant;
use allot_core::webhook::{Attempt, NewWebhook, Target, Webhook, WebhookHealth, WebhookStatus};
use allot_core::webhook::{MAX_WEBHOOKS_PER_TENANT, ROTATION_OVERLAP_MS};
use allot_core::{AllotError, Capable, Result, WebhookStore};
use async_trait::async_trait;

const COLS: &str = "id, url, types, status, created_at, last_attempt_at, last_status, last_success_at,
    consecutive_failures, failing_since, last_error";

/// Record an attempt on endpoint `$2` of `$1` at `$3`: answer status `$4` (NULL: none),
/// delivered `$5`, gone `$6` (which disables it), why it failed `$7`.
const SQL_ATTEMPT: &str = "UPDATE webhooks SET last_attempt_at = $3, last_status = $4,
        last_error = CASE WHEN $5 THEN NULL ELSE $7 END,
        last_success_at = CASE WHEN $5 THEN $3 ELSE last_success_at END,
        consecutive_failures = CASE WHEN $5 THEN 0 ELSE consecutive_failures + 1 END,
        failing_since = CASE WHEN $5 THEN NULL ELSE COALESCE(failing_since, $3) END,
        status = CASE WHEN $6 THEN 'disabled' ELSE status END
     WHERE tenant = $1 AND id = $2";

/// Make endpoint `$2` of `$1` when the tenant has fewer than `$7`; its start is the
/// tenant's highest cursor now. Answers (inserted, exists).
const SQL_CREATE: &str = "WITH ins AS (
        INSERT INTO webhooks (tenant, id, url, types, secret, status, created_at, after_cursor)
        SELECT $1, $2, $3, $4, $5, 'enabled', $6,
               COALESCE((SELECT max(cursor) FROM events WHERE tenant = $1 AND cursor IS NOT NULL), 0)
         WHERE (SELECT count(*) FROM webhooks WHERE tenant = $1) < $7
        ON CONFLICT DO NOTHING RETURNING 1)
    SELECT (SELECT count(*) FROM ins) AS inserted,
           EXISTS (SELECT 1 FROM webhooks WHERE tenant = $1 AND id = $2) AS present";

fn webhook_of(r: &tokio_postgres::Row) -> Result<Webhook> {
    let names: Vec<String> = serde_json::from_value(r.get("types")).map_err(|e| AllotError::Internal(e.to_string()))?;
    let status: String = r.get("status");
    Ok(Webhook {
        id: r.get("id"),
        url: r.get("url"),
        types: allot_core::webhook::event_types(&names).unwrap_or_default(),
        status: WebhookStatus::parse(&status)
            .ok_or_else(|| AllotError::Internal(format!("webhook status {status}")))?,
        created_at: r.get("created_at"),
        health: WebhookHealth {
            last_attempt_at: r.get("last_attempt_at"),
            last_status: r
                .get::<_, Option<i32>>("last_status")
                .and_then(|s| u16::try_from(s).ok()),
            last_success_at: r.get("last_success_at"),
            consecutive_failures: r.get("consecutive_failures"),
            failing_since: r.get("failing_since"),
            last_error: r.get("last_error"),
        },
    })
}

/// The stored form of `types`: `["*"]` for all.
fn types_json(new: &NewWebhook) -> serde_json::Value {
    if new.types.is_empty() {
        return serde_json::json!(["*"]);
    }
    serde_json::json!(new.types.iter().map(|t| t.as_str()).collect::<Vec<_>>())
}

fn target_of(r: &tokio_postgres::Row, now: chrono::DateTime<chrono::Utc>) -> Result<Target> {
    let w = webhook_of(r)?;
    let mut keys: Vec<Vec<u8>> = vec![r.get("secret")];
    let old: Option<Vec<u8>> = r.get("old_secret");
    let until: Option<chrono::DateTime<chrono::Utc>> = r.get("old_until");
    if let (Some(old), Some(until)) = (old, until) {
        if until > now {
            keys.push(old);
        }
    }
    Ok(Target {
        tenant: Tenant::stored(r.get::<_, String>("tenant")),
        id: w.id,
        url: w.url,
        types: w.types,
        keys,
        status: w.status,
        failing: w.health.consecutive_failures > 0,
    })
}

#[async_trait]
impl WebhookStore for PgStore {
    async fn create_webhook(&self, tenant: &Tenant, id: &str, new: NewWebhook) -> Result<Webhook> {
        // Number what committed before now, so the endpoint's start is after it (best effort:
        // another instance's sequencer may hold the lock, and then numbers it a moment later).
        self.run_sequence_events(self.limits.event_sequence_batch).await?;
        let c = self.client().await?;
        let max = MAX_WEBHOOKS_PER_TENANT as i64;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
            &tenant.as_str(),
            &id,
            &new.url,
            &types_json(&new),
            &new.secret,
            &self.now(),
            &max,
        ];
        let row = c.query_one(SQL_CREATE, &params).await.map_err(map_error)?;
        if row.get::<_, i64>("inserted") == 0 {
            return Err(if row.get("present") {
                AllotError::AlreadyExists {
                    kind: "webhook",
                    id: id.to_string(),
                }
            } else {
                AllotError::LimitExceeded {
                    limit: "max_webhooks_per_tenant",
                    max: max as u64,
                    message: format!("tenant has {max} webhooks"),
                }
            });
        }
        let sql = format!("SELECT {COLS} FROM webhooks WHERE tenant = $1 AND id = $2");
        webhook_of(&c.query_one(&sql, &[&tenant.as_str(), &id]).await.map_err(map_error)?)
    }

    async fn list_webhooks(&self, tenant: &Tenant) -> Result<Vec<Webhook>> {
        let c = self.client().await?;
        let sql = format!("SELECT {COLS} FROM webhooks WHERE tenant = $1 ORDER BY created_at, id");
        let rows = c.query(&sql, &[&tenant.as_str()]).await.map_err(map_error)?;
        rows.iter().map(webhook_of).collect()
    }

    async fn delete_webhook(&self, tenant: &Tenant, id: &str) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute(
                "DELETE FROM webhooks WHERE tenant = $1 AND id = $2",
                &[&tenant.as_str(), &id],
            )
            .await
            .map_err(map_error)?;
        if n == 0 {
            return Err(AllotError::not_found("webhook", id));
        }
        Ok(())
    }

    async fn rotate_webhook_secret(&self, tenant: &Tenant, id: &str, secret: Vec<u8>) -> Result<Webhook> {
        let c = self.client().await?;
        let until = self.now() + chrono::Duration::milliseconds(ROTATION_OVERLAP_MS);
        let sql = format!(
            "UPDATE webhooks SET old_secret = secret, old_until = $4, secret = $3
              WHERE tenant = $1 AND id = $2 RETURNING {COLS}"
        );
        match c
            .query_opt(&sql, &[&tenant.as_str(), &id, &secret, &until])
            .await
            .map_err(map_error)?
        {
            Some(r) => webhook_of(&r),
            None => Err(AllotError::not_found("webhook", id)),
        }
    }

    async fn webhook_target(&self, tenant: &Tenant, id: &str) -> Result<Option<Target>> {
        let c = self.client().await?;
        let sql =
            format!("SELECT tenant, secret, old_secret, old_until, {COLS} FROM webhooks WHERE tenant = $1 AND id = $2");
        let row = c.query_opt(&sql, &[&tenant.as_str(), &id]).await.map_err(map_error)?;
        row.map(|r| target_of(&r, self.now())).transpose()
    }

    async fn record_attempt(&self, tenant: &Tenant, id: &str, attempt: Attempt, error: Option<&str>) -> Result<()> {
        let c = self.client().await?;
        let status = attempt.status().map(i32::from);
        let (delivered, gone) = (attempt.delivered(), attempt == Attempt::Gone);
        let error = error.map(allot_core::webhook::error_text);
        c.execute(
            SQL_ATTEMPT,
            &[&tenant.as_str(), &id, &self.now(), &status, &delivered, &gone, &error],
        )
        .await
        .map_err(map_error)?;
        Ok(())
    }

    async fn webhook_dispatch(&self) -> Result<Vec<(Target, i64, i64)>> {
        let c = self.client().await?;
        let sql = "SELECT w.tenant, w.secret, w.old_secret, w.old_until, w.after_cursor,
                          COALESCE(d.last, 0) AS handed_over, w.id, w.url, w.types, w.status, w.created_at,
                          w.last_attempt_at, w.last_status, w.last_success_at, w.consecutive_failures,
                          w.failing_since, w.last_error
                     FROM webhooks w LEFT JOIN webhook_dispatch d ON d.tenant = w.tenant
                    WHERE w.status = 'enabled' ORDER BY w.tenant, w.created_at, w.id";
        let rows = c.query(sql, &[]).await.map_err(map_error)?;
        let now = self.now();
        rows.iter()
            .map(|r| Ok((target_of(r, now)?, r.get("handed_over"), r.get("after_cursor"))))
            .collect()
    }

    async fn advance_webhook_dispatch(&self, tenant: &Tenant, from: i64, to: i64) -> Result<bool> {
        let c = self.client().await?;
        let n = c
            .execute(
                "INSERT INTO webhook_dispatch AS d (tenant, last) VALUES ($1, $3)
                 ON CONFLICT (tenant) DO UPDATE SET last = $3 WHERE d.last = $2",
                &[&tenant.as_str(), &from, &to],
            )
            .await
            .map_err(map_error)?;
        Ok(n == 1)
    }
}
