//! Webhook endpoints on SQLite (V13), and each tenant's hand-over cursor, as on PostgreSQL.

use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::tenant::Tenant;
use allot_core::webhook::{Attempt, NewWebhook, Target, Webhook, WebhookHealth, WebhookStatus};
use allot_core::webhook::{MAX_WEBHOOKS_PER_TENANT, ROTATION_OVERLAP_MS};
use allot_core::{AllotError, Result, WebhookStore};
use async_trait::async_trait;
use rusqlite::{params, OptionalExtension};

const COLS: &str = "tenant, id, url, types, status, created_at_us, secret, old_secret, old_until_us,
    last_attempt_us, last_status, last_success_us, consecutive_failures, failing_since_us, last_error";

/// Record an attempt on endpoint `?2` of `?1` at `?3`: answer status `?4` (NULL: none),
/// delivered `?5`, gone `?6` (which disables it), why it failed `?7`.
const SQL_ATTEMPT: &str = "UPDATE webhooks SET last_attempt_us = ?3, last_status = ?4,
        last_error = CASE WHEN ?5 THEN NULL ELSE ?7 END,
        last_success_us = CASE WHEN ?5 THEN ?3 ELSE last_success_us END,
        consecutive_failures = CASE WHEN ?5 THEN 0 ELSE consecutive_failures + 1 END,
        failing_since_us = CASE WHEN ?5 THEN NULL ELSE COALESCE(failing_since_us, ?3) END,
        status = CASE WHEN ?6 THEN 'disabled' ELSE status END
     WHERE tenant = ?1 AND id = ?2";

/// A stored endpoint: the webhook and its signing keys as of `now_us`.
fn target_of(r: &rusqlite::Row<'_>, now_us: i64) -> rusqlite::Result<Target> {
    let w = webhook_of(r)?;
    let mut keys: Vec<Vec<u8>> = vec![r.get("secret")?];
    let old: Option<Vec<u8>> = r.get("old_secret")?;
    let until: Option<i64> = r.get("old_until_us")?;
    if let (Some(old), Some(until)) = (old, until) {
        if until > now_us {
            keys.push(old);
        }
    }
    Ok(Target {
        tenant: Tenant::stored(r.get::<_, String>("tenant")?),
        id: w.id,
        url: w.url,
        types: w.types,
        keys,
        status: w.status,
        failing: w.health.consecutive_failures > 0,
    })
}

fn webhook_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Webhook> {
    let bad = |what: String| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, what.into());
    let names: Vec<String> = serde_json::from_str(&r.get::<_, String>("types")?).map_err(|e| bad(e.to_string()))?;
    let status: String = r.get("status")?;
    Ok(Webhook {
        id: r.get("id")?,
        url: r.get("url")?,
        types: allot_core::webhook::event_types(&names).unwrap_or_default(),
        status: WebhookStatus::parse(&status).ok_or_else(|| bad(format!("webhook status {status}")))?,
        created_at: from_us(r.get("created_at_us")?),
        health: WebhookHealth {
            last_attempt_at: r.get::<_, Option<i64>>("last_attempt_us")?.map(from_us),
            last_status: r
                .get::<_, Option<i64>>("last_status")?
                .and_then(|s| u16::try_from(s).ok()),
            last_success_at: r.get::<_, Option<i64>>("last_success_us")?.map(from_us),
            consecutive_failures: r.get("consecutive_failures")?,
            failing_since: r.get::<_, Option<i64>>("failing_since_us")?.map(from_us),
            last_error: r.get("last_error")?,
        },
    })
}

/// The stored form of `types`: `["*"]` for all.
fn types_json(new: &NewWebhook) -> String {
    if new.types.is_empty() {
        return r#"["*"]"#.into();
    }
    serde_json::json!(new.types.iter().map(|t| t.as_str()).collect::<Vec<_>>()).to_string()
}

/// Endpoint `id` of `tenant`, if it exists.
fn read(c: &rusqlite::Connection, tenant: &str, id: &str) -> Result<Option<Target>> {
    let sql = format!("SELECT {COLS} FROM webhooks WHERE tenant = ?1 AND id = ?2");
    c.query_row(&sql, [tenant, id], |r| target_of(r, now_us()))
        .optional()
        .map_err(map_error)
}

#[async_trait]
impl WebhookStore for SqliteStore {
    async fn create_webhook(&self, tenant: &Tenant, id: &str, new: NewWebhook) -> Result<Webhook> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.transact(move |tx| {
            let count: i64 = tx
                .query_row("SELECT count(*) FROM webhooks WHERE tenant = ?1", [&t], |r| r.get(0))
                .map_err(map_error)?;
            if read(tx, &t, &id)?.is_some() {
                return Err(AllotError::AlreadyExists { kind: "webhook", id });
            }
            if count >= MAX_WEBHOOKS_PER_TENANT as i64 {
                return Err(AllotError::LimitExceeded {
                    limit: "max_webhooks_per_tenant",
                    max: MAX_WEBHOOKS_PER_TENANT as u64,
                    message: format!("tenant has {count} webhooks"),
                });
            }
            let now = now_us();
            tx.execute(
                "INSERT INTO webhooks (tenant, id, url, types, secret, status, created_at_us, after_cursor)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'enabled', ?6,
                         COALESCE((SELECT max(cursor) FROM events WHERE tenant = ?1), 0))",
                params![t, id, new.url, types_json(&new), new.secret, now],
            )
            .map_err(map_error)?;
            let sql = format!("SELECT {COLS} FROM webhooks WHERE tenant = ?1 AND id = ?2");
            tx.query_row(&sql, [&t, &id], webhook_of).map_err(map_error)
        })
        .await
    }

    async fn list_webhooks(&self, tenant: &Tenant) -> Result<Vec<Webhook>> {
        let t = tenant.to_string();
        self.call(move |c| {
            let sql = format!("SELECT {COLS} FROM webhooks WHERE tenant = ?1 ORDER BY created_at_us, id");
            c.prepare(&sql)
                .and_then(|mut s| s.query_map([&t], webhook_of)?.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(map_error)
        })
        .await
    }

    async fn delete_webhook(&self, tenant: &Tenant, id: &str) -> Result<()> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.transact(move |tx| {
            let n = tx
                .execute("DELETE FROM webhooks WHERE tenant = ?1 AND id = ?2", [&t, &id])
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::not_found("webhook", &id));
            }
            Ok(())
        })
        .await
    }

    async fn rotate_webhook_secret(&self, tenant: &Tenant, id: &str, secret: Vec<u8>) -> Result<Webhook> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.transact(move |tx| {
            let until = now_us() + ROTATION_OVERLAP_MS * 1000;
            let n = tx
                .execute(
                    "UPDATE webhooks SET old_secret = secret, old_until_us = ?4, secret = ?3 WHERE tenant = ?1 AND id = ?2",
                    params![t, id, secret, until],
                )
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::not_found("webhook", &id));
            }
            tx.query_row(&format!("SELECT {COLS} FROM webhooks WHERE tenant = ?1 AND id = ?2"), [&t, &id], webhook_of)
                .map_err(map_error)
        })
        .await
    }

    async fn webhook_target(&self, tenant: &Tenant, id: &str) -> Result<Option<Target>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.call(move |c| read(c, &t, &id)).await
    }

    async fn record_attempt(&self, tenant: &Tenant, id: &str, attempt: Attempt, error: Option<&str>) -> Result<()> {
        let (t, id) = (tenant.to_string(), id.to_string());
        let status = attempt.status().map(i64::from);
        let (delivered, gone) = (attempt.delivered(), attempt == Attempt::Gone);
        let error = error.map(allot_core::webhook::error_text);
        self.transact(move |tx| {
            tx.execute(SQL_ATTEMPT, params![t, id, now_us(), status, delivered, gone, error])
                .map(|_| ())
                .map_err(map_error)
        })
        .await
    }

    async fn webhook_dispatch(&self) -> Result<Vec<(Target, i64, i64)>> {
        self.call(|c| {
            let sql = "SELECT w.tenant, w.id, w.url, w.types, w.status, w.created_at_us, w.secret, w.old_secret,
                              w.old_until_us, w.after_cursor, COALESCE(d.last, 0) AS handed_over,
                              w.last_attempt_us, w.last_status, w.last_success_us, w.consecutive_failures,
                              w.failing_since_us, w.last_error
                         FROM webhooks w LEFT JOIN webhook_dispatch d ON d.tenant = w.tenant
                        WHERE w.status = 'enabled' ORDER BY w.tenant, w.created_at_us, w.id";
            let now = now_us();
            c.prepare(sql)
                .and_then(|mut s| {
                    s.query_map([], |r| {
                        Ok((target_of(r, now)?, r.get("handed_over")?, r.get("after_cursor")?))
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()
                })
                .map_err(map_error)
        })
        .await
    }

    async fn advance_webhook_dispatch(&self, tenant: &Tenant, from: i64, to: i64) -> Result<bool> {
        let t = tenant.to_string();
        self.transact(move |tx| {
            tx.execute(
                "INSERT INTO webhook_dispatch (tenant, last) VALUES (?1, ?3)
                 ON CONFLICT (tenant) DO UPDATE SET last = ?3 WHERE last = ?2",
                params![t, from, to],
            )
            .map(|n| n == 1)
            .map_err(map_error)
        })
        .await
    }
}
