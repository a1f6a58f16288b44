//! API keys on SQLite: one row per key, found by the SHA-256 of its secret (unique index);
//! scopes as a JSON array of names.

use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::access::{ApiKey, NewKey, Scope};
use allot_core::store::KeyStore;
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Result};
use async_trait::async_trait;
use rusqlite::{params, OptionalExtension};

const COLS: &str = "id, tenant, name, scopes, prefix, rate_per_s, created_at_us, revoked_at_us";

fn key_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<ApiKey> {
    let names: String = r.get("scopes")?;
    let scopes: Vec<Scope> = serde_json::from_str(&names)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Text, Box::new(e)))?;
    Ok(ApiKey {
        id: r.get("id")?,
        tenant: Tenant::stored(r.get::<_, String>("tenant")?),
        name: r.get("name")?,
        scopes,
        prefix: r.get("prefix")?,
        rate_per_s: r.get::<_, Option<i64>>("rate_per_s")?.map(|v| v as u32),
        created_at: from_us(r.get("created_at_us")?),
        revoked_at: r.get::<_, Option<i64>>("revoked_at_us")?.map(from_us),
    })
}

#[async_trait]
impl KeyStore for SqliteStore {
    async fn create_key(&self, new: NewKey) -> Result<ApiKey> {
        self.transact(move |tx| {
            let k = &new.key;
            let scopes = serde_json::to_string(&k.scopes).map_err(|e| AllotError::Internal(e.to_string()))?;
            tx.execute(
                "INSERT INTO api_keys (id, tenant, name, scopes, prefix, secret_sha256, rate_per_s, created_at_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    k.id,
                    k.tenant.as_str(),
                    k.name,
                    scopes,
                    k.prefix,
                    new.secret_sha256,
                    k.rate_per_s,
                    us(k.created_at)
                ],
            )
            .map_err(map_error)?;
            Ok(new.key)
        })
        .await
    }

    async fn list_keys(&self, tenant: &Tenant) -> Result<Vec<ApiKey>> {
        let tenant = tenant.to_string();
        self.call(move |c| {
            let sql = format!("SELECT {COLS} FROM api_keys WHERE tenant = ?1 ORDER BY created_at_us DESC, id");
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_map([&tenant], key_of)?.collect())
                .map_err(map_error)
        })
        .await
    }

    async fn revoke_key(&self, tenant: Option<&Tenant>, id: &str) -> Result<ApiKey> {
        let (tenant, id) = (tenant.map(Tenant::to_string), id.to_string());
        self.transact(move |tx| {
            tx.execute(
                "UPDATE api_keys SET revoked_at_us = COALESCE(revoked_at_us, ?3)
                  WHERE (?1 IS NULL OR tenant = ?1) AND id = ?2",
                params![tenant, id, now_us()],
            )
            .map_err(map_error)?;
            let sql = format!("SELECT {COLS} FROM api_keys WHERE (?1 IS NULL OR tenant = ?1) AND id = ?2");
            tx.query_row(&sql, params![tenant, id], key_of)
                .optional()
                .map_err(map_error)?
                .ok_or_else(|| AllotError::not_found("key", id.as_str()))
        })
        .await
    }

    async fn key_by_hash(&self, secret_sha256: &str) -> Result<Option<ApiKey>> {
        let hash = secret_sha256.to_string();
        self.call(move |c| {
            let sql = format!("SELECT {COLS} FROM api_keys WHERE secret_sha256 = ?1");
            c.prepare_cached(&sql)
                .and_then(|mut s| s.query_row([&hash], key_of).optional())
                .map_err(map_error)
        })
        .await
    }

    async fn any_key(&self) -> Result<bool> {
        self.call(|c| {
            c.query_row("SELECT EXISTS (SELECT 1 FROM api_keys)", [], |r| r.get(0))
                .map_err(map_error)
        })
        .await
    }
}
