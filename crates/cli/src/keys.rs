//! `allot keys create|list|revoke`: API keys, straight on the database (the operator's way in
//! before any key exists). `create` prints the secret once, alone on its own line.

use crate::db_args::{existing, tenant_arg, DbArgs};
use allot_core::access::{NewKeyBody, Scope};
use allot_core::Tenant;
use clap::{Args, Subcommand};

#[derive(Subcommand)]
pub(crate) enum KeysCmd {
    /// Make a key; prints its secret once (stdout, its own line) — store it now.
    Create(KeyCreateArgs),
    /// List a tenant's keys (never their secrets).
    List(KeyListArgs),
    /// Revoke a key by id; every instance refuses it within allot_server::access::CACHE_TTL.
    Revoke(KeyRevokeArgs),
}

#[derive(Args)]
pub(crate) struct KeyCreateArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The tenant the key acts in.
    #[arg(long, default_value = allot_server::access::DEFAULT_TENANT, value_parser = tenant_arg)]
    tenant: Tenant,
    /// A name for people (`checkout`).
    #[arg(long)]
    name: String,
    /// Comma-separated scopes: admin, stock:read, stock:write, units:read, units:write,
    /// bookings:read, bookings:write, jobs:read, jobs:enqueue, jobs:work, events:read, webhooks:manage.
    #[arg(long, value_delimiter = ',', required = true)]
    scopes: Vec<String>,
    /// Requests per second of this key (the server's default when absent).
    #[arg(long)]
    rate_per_s: Option<u32>,
}

#[derive(Args)]
pub(crate) struct KeyListArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The tenant.
    #[arg(long, default_value = allot_server::access::DEFAULT_TENANT, value_parser = tenant_arg)]
    tenant: Tenant,
}

#[derive(Args)]
pub(crate) struct KeyRevokeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The key's id (from `allot keys list`).
    id: String,
}

pub(crate) async fn keys(cmd: KeysCmd) -> anyhow::Result<()> {
    match cmd {
        KeysCmd::Create(a) => {
            let store = allot_store::open(&a.db.database_url, &a.db.options(Default::default())).await?;
            let scopes = a
                .scopes
                .iter()
                .map(|s| s.trim().parse::<Scope>())
                .collect::<Result<Vec<_>, _>>()?;
            let body = NewKeyBody {
                name: a.name,
                scopes,
                rate_per_s: a.rate_per_s,
            };
            let (key, secret) = allot_server::access::create_key(store.as_ref(), store.now(), &a.tenant, &body).await?;
            eprintln!(
                "key {} of tenant {} ({}); its secret, shown this once:",
                key.id,
                key.tenant,
                scope_list(&key.scopes)
            );
            println!("{secret}");
        }
        KeysCmd::List(a) => {
            let store = allot_store::open(&a.db.database_url, &a.db.options(existing())).await?;
            for k in store.list_keys(&a.tenant).await? {
                let state = k
                    .revoked_at
                    .map_or("active".to_string(), |t| format!("revoked {}", t.to_rfc3339()));
                println!(
                    "{}  {}  {}…  {}  {}",
                    k.id,
                    k.name,
                    k.prefix,
                    scope_list(&k.scopes),
                    state
                );
            }
        }
        KeysCmd::Revoke(a) => {
            let store = allot_store::open(&a.db.database_url, &a.db.options(existing())).await?;
            let k = store.revoke_key(None, &a.id).await?;
            println!("revoked {} ({} of tenant {})", k.id, k.name, k.tenant);
        }
    }
    Ok(())
}

fn scope_list(scopes: &[Scope]) -> String {
    scopes.iter().map(|s| s.name()).collect::<Vec<_>>().join(",")
}
