//! The two floors of the cost table. The HTTP floor: the no-op handler of `bench compare`
//! (axum, the same body parsed, no store) in a process of its own under callgrind, so its
//! instructions per request are what any request costs before allot does anything. The
//! database's floor: the textbook statements run by this process through the counting proxy
//! — the bare conditional `UPDATE` (`bench/pgbench/hot_sku.sql`), and a hand-written
//! transaction that writes what an allocation writes: the decrement, a ledger row and an
//! order row.

use super::wal;
use super::wire::CountingProxy;
use super::{CostRow, Totals};
use crate::error::BenchError;
use tokio_postgres::Client;

/// The textbook decrement (as `bench/pgbench/hot_sku.sql`).
const DECREMENT: &str = "UPDATE stock SET on_hand = on_hand - 1, version = version + 1
  WHERE tenant = 'default' AND sku = $1 AND bucket = 0 AND on_hand - held >= 1";

/// The hand-written transaction's own tables: an order and a ledger entry per allocation.
const FLOOR_TABLES: &str = "
CREATE TABLE IF NOT EXISTS cost_floor_orders (
  id uuid PRIMARY KEY, sku text NOT NULL, quantity int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS cost_floor_ledger (
  id bigserial PRIMARY KEY, sku text NOT NULL, delta int NOT NULL, order_id uuid NOT NULL,
  at timestamptz NOT NULL DEFAULT now());";

const INSERT_ORDER: &str = "INSERT INTO cost_floor_orders (id, sku, quantity) VALUES ($1::text::uuid, $2, 1)";
const INSERT_LEDGER: &str = "INSERT INTO cost_floor_ledger (sku, delta, order_id) VALUES ($1, -1, $2::text::uuid)";

/// The database floor's two rows, `ops` operations each on `sku` (which must exist).
pub async fn database_rows(
    proxy: &CountingProxy,
    direct: &Client,
    db: &str,
    sku: &str,
    ops: u64,
) -> Result<Vec<CostRow>, BenchError> {
    let setup = |e: tokio_postgres::Error| BenchError::Setup(format!("the database floor: {e}"));
    // Through the proxy, as the server's statements go.
    let mut c = super::connect(proxy.port, db).await?;
    c.batch_execute(FLOOR_TABLES).await.map_err(setup)?;
    let decrement = c.prepare(DECREMENT).await.map_err(setup)?;
    let (order, ledger) = (
        c.prepare(INSERT_ORDER).await.map_err(setup)?,
        c.prepare(INSERT_LEDGER).await.map_err(setup)?,
    );
    let mut rows = Vec::new();
    let before = (proxy.counts(), wal::position(direct).await?);
    for _ in 0..ops {
        if c.execute(&decrement, &[&sku]).await.map_err(setup)? != 1 {
            return Err(BenchError::Setup(format!("the floor's UPDATE found no stock of {sku}")));
        }
    }
    rows.push(db_row("floor: bare UPDATE", ops, proxy, direct, before).await?);
    let before = (proxy.counts(), wal::position(direct).await?);
    for _ in 0..ops {
        let tx = c.transaction().await.map_err(setup)?;
        tx.execute(&decrement, &[&sku]).await.map_err(setup)?;
        let id = uuid::Uuid::new_v4().to_string();
        tx.execute(&order, &[&id, &sku]).await.map_err(setup)?;
        tx.execute(&ledger, &[&sku, &id]).await.map_err(setup)?;
        tx.commit().await.map_err(setup)?;
    }
    rows.push(db_row("floor: UPDATE + ledger + order", ops, proxy, direct, before).await?);
    Ok(rows)
}

async fn db_row(
    name: &str,
    ops: u64,
    proxy: &CountingProxy,
    direct: &Client,
    (wire_before, wal_start): (super::wire::WireCounts, String),
) -> Result<CostRow, BenchError> {
    let wire = proxy.counts().since(wire_before);
    let wal = wal::since(direct, &wal_start).await?;
    Ok(CostRow::new(
        name,
        "textbook SQL, by hand",
        ops,
        Totals::of(0, None, wire, wal),
    ))
}
