//! API keys on PostgreSQL: one row per key, found by the SHA-256 of its secret (unique index).

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::access::{ApiKey, NewKey, Scope};
use allot_core::store::KeyStore;
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Capable, Result};
use async_trait::async_trait;
use std::sync::LazyLock;

const COLS: &str = "id, tenant, name, scopes, prefix, rate_per_s, created_at, revoked_at";

fn key_of(r: &tokio_postgres::Row) -> Result<ApiKey> {
    let names: Vec<String> = r.get("scopes");
    let scopes = names
        .iter()
        .map(|n| n.parse::<Scope>())
        .collect::<Result<Vec<_>>>()
        .map_err(|_| AllotError::Internal("a key with an unknown scope".into()))?;
    Ok(ApiKey {
        id: r.get("id"),
        tenant: Tenant::stored(r.get::<_, String>("tenant")),
        name: r.get("name"),
        scopes,
        prefix: r.get("prefix"),
        rate_per_s: r.get::<_, Option<i32>>("rate_per_s").map(|v| v as u32),
        created_at: r.get("created_at"),
        revoked_at: r.get("revoked_at"),
    })
}

#[async_trait]
impl KeyStore for PgStore {
    async fn create_key(&self, new: NewKey) -> Result<ApiKey> {
        let c = self.client().await?;
        let k = &new.key;
        let scopes: Vec<&str> = k.scopes.iter().map(|s| s.name()).collect();
        let rate = k.rate_per_s.map(|r| r as i32);
        c.execute(
            "INSERT INTO api_keys (id, tenant, name, scopes, prefix, secret_sha256, rate_per_s, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &k.id,
                &k.tenant.as_str(),
                &k.name,
                &scopes,
                &k.prefix,
                &new.secret_sha256,
                &rate,
                &k.created_at,
            ],
        )
        .await
        .map_err(map_error)?;
        Ok(new.key)
    }

    async fn list_keys(&self, tenant: &Tenant) -> Result<Vec<ApiKey>> {
        let c = self.client().await?;
        let sql = format!("SELECT {COLS} FROM api_keys WHERE tenant = $1 ORDER BY created_at DESC, id");
        let rows = c.query(&sql, &[&tenant.as_str()]).await.map_err(map_error)?;
        rows.iter().map(key_of).collect()
    }

    async fn revoke_key(&self, tenant: Option<&Tenant>, id: &str) -> Result<ApiKey> {
        let (c, now) = (self.client().await?, self.now());
        let sql = format!(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3)
              WHERE ($1::text IS NULL OR tenant = $1) AND id = $2 RETURNING {COLS}"
        );
        match c
            .query_opt(&sql, &[&tenant.map(Tenant::as_str), &id, &now])
            .await
            .map_err(map_error)?
        {
            Some(r) => key_of(&r),
            None => Err(AllotError::not_found("key", id)),
        }
    }

    async fn key_by_hash(&self, secret_sha256: &str) -> Result<Option<ApiKey>> {
        let c = self.client().await?;
        static SQL: LazyLock<String> =
            LazyLock::new(|| format!("SELECT {COLS} FROM api_keys WHERE secret_sha256 = $1"));
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        match c.query_opt(&stmt, &[&secret_sha256]).await.map_err(map_error)? {
            Some(r) => key_of(&r).map(Some),
            None => Ok(None),
        }
    }

    async fn any_key(&self) -> Result<bool> {
        let c = self.client().await?;
        let row = c
            .query_one("SELECT EXISTS (SELECT 1 FROM api_keys)", &[])
            .await
            .map_err(map_error)?;
        Ok(row.get(0))
    }
}
