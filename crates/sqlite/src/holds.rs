//! Holds and units on SQLite. Every write is one serialized `BEGIN IMMEDIATE` transaction
//! on the writer thread, so a claim sees the exact order and a hold is finished exactly once.

use crate::map_error;
use crate::stock::{from_us, now_us, read_allocation, take_lines, tracks_units, SqliteStore, Take};
use allot_core::hold::{confirm_refusal, HoldKind, HoldStatus};
use allot_core::store::{Executed, HoldStore, Idempotency, StockStore, UnitStore};
use allot_core::unit::{claim_satisfied, order_by_sql};
use allot_core::*;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

const HOLD_COLUMNS: &str = "id, kind, status, strategy, lines, expires_at_us, created_at_us";

fn ledger_kind(to: HoldStatus) -> &'static str {
    match to {
        HoldStatus::Confirmed => "hold_confirmed",
        HoldStatus::Released => "hold_released",
        HoldStatus::Expired => "hold_expired",
        HoldStatus::Held => "hold",
    }
}

/// Finish `held` holds: mark them `to`, give stock back to its buckets (or take it out of
/// `on_hand` too when confirming), return or allocate their units, one ledger entry per
/// line. Conditional on `status = 'held'`: each hold is finished once.
pub(crate) fn finish_holds(c: &Connection, ids: &[String], to: HoldStatus, now_us: i64) -> Result<u64> {
    let confirm = to == HoldStatus::Confirmed;
    let mut done = 0;
    for id in ids {
        let n = c
            .prepare_cached("UPDATE holds SET status = ?2, finished_at_us = ?3 WHERE id = ?1 AND status = 'held'")
            .and_then(|mut s| s.execute(params![id, to.as_str(), now_us]))
            .map_err(map_error)?;
        if n == 0 {
            continue;
        }
        done += 1;
        c.prepare_cached(
            "UPDATE stock SET held = held - (SELECT quantity FROM hold_lines hl
                                            WHERE hl.hold_id = ?1 AND hl.sku = stock.sku AND hl.bucket = stock.bucket),
                    on_hand = on_hand - CASE WHEN ?2 THEN (SELECT quantity FROM hold_lines hl
                                            WHERE hl.hold_id = ?1 AND hl.sku = stock.sku AND hl.bucket = stock.bucket) ELSE 0 END,
                    version = version + 1
              WHERE (sku, bucket) IN (SELECT sku, bucket FROM hold_lines WHERE hold_id = ?1 AND bucket >= 0)",
        )
        .and_then(|mut s| s.execute(params![id, confirm]))
        .map_err(map_error)?;
        c.prepare_cached(
            "UPDATE units SET status = CASE WHEN ?2 THEN 'allocated' ELSE 'available' END,
                    claim_id = CASE WHEN ?2 THEN claim_id END
              WHERE claim_id = ?1 AND status = 'held'",
        )
        .and_then(|mut s| s.execute(params![id, confirm]))
        .map_err(map_error)?;
        c.prepare_cached(
            "INSERT INTO ledger (sku, delta, held_delta, kind, ref, at_us)
             SELECT sku, CASE WHEN ?2 THEN -quantity ELSE 0 END, -quantity, ?3, hold_id, ?4
               FROM hold_lines WHERE hold_id = ?1 ORDER BY sku, bucket",
        )
        .and_then(|mut s| s.execute(params![id, confirm, ledger_kind(to), now_us]))
        .map_err(map_error)?;
    }
    Ok(done)
}

/// Finish the overdue holds that hold `sku`, inside the caller's transaction.
pub(crate) fn expire_overdue_on(c: &Connection, sku: &str, now_us: i64) -> Result<u64> {
    let ids: Vec<String> = c
        .prepare_cached(
            "SELECT h.id FROM holds h WHERE h.status = 'held' AND h.expires_at_us <= ?2
                AND EXISTS (SELECT 1 FROM hold_lines hl WHERE hl.hold_id = h.id AND hl.sku = ?1) ORDER BY h.id",
        )
        .and_then(|mut s| s.query_map(params![sku, now_us], |r| r.get(0))?.collect())
        .map_err(map_error)?;
    finish_holds(c, &ids, HoldStatus::Expired, now_us)
}

struct HoldRow {
    id: String,
    kind: HoldKind,
    stored: HoldStatus,
    strategy: String,
    lines: String,
    expires_at_us: i64,
    created_at_us: i64,
}

fn hold_row(c: &Connection, id: &str) -> Result<HoldRow> {
    c.prepare_cached(&format!("SELECT {HOLD_COLUMNS} FROM holds WHERE id = ?1"))
        .and_then(|mut s| {
            s.query_row([id], |r| {
                Ok(HoldRow {
                    id: r.get(0)?,
                    kind: HoldKind::parse(&r.get::<_, String>(1)?),
                    stored: HoldStatus::parse(&r.get::<_, String>(2)?).unwrap_or(HoldStatus::Expired),
                    strategy: r.get(3)?,
                    lines: r.get(4)?,
                    expires_at_us: r.get(5)?,
                    created_at_us: r.get(6)?,
                })
            })
            .optional()
        })
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("hold", id))
}

fn unit_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Unit> {
    Ok(Unit {
        id: r.get(0)?,
        serial: r.get(1)?,
        location: r.get(2)?,
        lot: r.get(3)?,
        received_at: from_us(r.get(4)?),
        expires_at: r.get::<_, Option<i64>>(5)?.map(from_us),
    })
}

fn read_hold(c: &Connection, id: &str, now_us: i64) -> Result<Hold> {
    let h = hold_row(c, id)?;
    let expires_at = from_us(h.expires_at_us);
    let units = match (h.kind, h.stored) {
        (HoldKind::Units, HoldStatus::Held | HoldStatus::Confirmed) => Some(
            c.prepare_cached(
                "SELECT id, serial, location, lot, received_at, expires_at FROM units WHERE claim_id = ?1 ORDER BY id",
            )
            .and_then(|mut s| s.query_map([id], unit_from_row)?.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(map_error)?,
        ),
        (HoldKind::Units, _) => Some(Vec::new()),
        _ => None,
    };
    Ok(Hold {
        id: h.id,
        status: h.stored.effective(expires_at, from_us(now_us)),
        kind: h.kind,
        lines: serde_json::from_str(&h.lines).map_err(|e| AllotError::Internal(e.to_string()))?,
        units,
        strategy: h.strategy,
        expires_at,
        created_at: from_us(h.created_at_us),
    })
}

fn insert_hold(
    c: &Connection,
    id: &str,
    kind: HoldKind,
    strategy: &str,
    lines: &[AllocationLine],
    expires_at_us: i64,
    now_us: i64,
) -> Result<()> {
    let json = serde_json::to_string(lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    c.prepare_cached(
        "INSERT INTO holds (id, kind, status, strategy, lines, expires_at_us, created_at_us)
         VALUES (?1, ?2, 'held', ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| s.execute(params![id, kind.as_str(), strategy, json, expires_at_us, now_us]))
    .map_err(map_error)?;
    Ok(())
}

fn insert_hold_line(c: &Connection, id: &str, sku: &str, bucket: i64, quantity: i64, now_us: i64) -> Result<()> {
    c.prepare_cached("INSERT INTO hold_lines (hold_id, sku, bucket, quantity) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![id, sku, bucket, quantity]))
        .map_err(map_error)?;
    c.prepare_cached(
        "INSERT INTO ledger (sku, delta, held_delta, kind, ref, at_us) VALUES (?1, 0, ?2, 'hold', ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![sku, quantity, id, now_us]))
    .map_err(map_error)?;
    Ok(())
}

fn us(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

#[async_trait]
impl HoldStore for SqliteStore {
    async fn create_hold(&self, req: HoldRequest, idem: Option<Idempotency<Hold>>) -> Result<Executed<Hold>> {
        self.require(req.take.strategy)?;
        self.write(idem, move |tx| {
            let now = now_us();
            let buckets = take_lines(tx, &req.take, Take::Hold, now)?;
            let hold = req.to_hold(from_us(now));
            insert_hold(
                tx,
                &hold.id,
                HoldKind::Stock,
                &hold.strategy,
                &hold.lines,
                us(hold.expires_at),
                now,
            )?;
            for (line, b) in hold.lines.iter().zip(buckets) {
                insert_hold_line(tx, &hold.id, &line.sku, b, line.quantity, now)?;
            }
            Ok(hold)
        })
        .await
    }

    async fn get_hold(&self, id: &str) -> Result<Hold> {
        let id = id.to_string();
        self.call(move |c| read_hold(c, &id, now_us())).await
    }

    async fn confirm_hold(&self, id: &str, idem: Option<Idempotency<Allocation>>) -> Result<Executed<Allocation>> {
        let id = id.to_string();
        self.write(idem, move |tx| {
            let now = now_us();
            let h = hold_row(tx, &id)?;
            if h.stored == HoldStatus::Held && h.expires_at_us > now {
                finish_holds(tx, std::slice::from_ref(&id), HoldStatus::Confirmed, now)?;
                tx.prepare_cached(
                    "INSERT INTO allocations (id, status, strategy, lines, created_at_us) VALUES (?1, 'allocated', ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![id, h.strategy, h.lines, now]))
                .map_err(map_error)?;
            } else {
                confirm_refusal(&id, h.stored, from_us(h.expires_at_us), from_us(now))?;
            }
            read_allocation(tx, &id)
        })
        .await
    }

    async fn release_hold(&self, id: &str, idem: Option<Idempotency<Hold>>) -> Result<Executed<Hold>> {
        let id = id.to_string();
        self.write(idem, move |tx| {
            let now = now_us();
            let h = hold_row(tx, &id)?;
            match h.stored.effective(from_us(h.expires_at_us), from_us(now)) {
                HoldStatus::Confirmed => {
                    return Err(AllotError::HoldNotActive {
                        id,
                        status: HoldStatus::Confirmed,
                    })
                }
                HoldStatus::Expired if h.stored == HoldStatus::Held => {
                    finish_holds(tx, std::slice::from_ref(&id), HoldStatus::Expired, now)?;
                }
                HoldStatus::Held => {
                    finish_holds(tx, std::slice::from_ref(&id), HoldStatus::Released, now)?;
                }
                _ => {}
            }
            read_hold(tx, &id, now)
        })
        .await
    }

    async fn expire_holds(&self, now: DateTime<Utc>, max_holds: u32) -> Result<u64> {
        let now = us(now);
        self.transact(move |tx| {
            let ids: Vec<String> = tx
                .prepare_cached(
                    "SELECT id FROM holds WHERE status = 'held' AND expires_at_us <= ?1 ORDER BY id LIMIT ?2",
                )
                .and_then(|mut s| s.query_map(params![now, max_holds.max(1)], |r| r.get(0))?.collect())
                .map_err(map_error)?;
            finish_holds(tx, &ids, HoldStatus::Expired, now)
        })
        .await
    }
}

#[async_trait]
impl UnitStore for SqliteStore {
    fn default_unit_strategy(&self) -> UnitStrategy {
        UnitStrategy::Serialized
    }

    fn supports_units(&self, strategy: UnitStrategy) -> bool {
        strategy == UnitStrategy::Serialized
    }

    async fn add_units(
        &self,
        req: AddUnits,
        idem: Option<Idempotency<UnitsCreated>>,
    ) -> Result<Executed<UnitsCreated>> {
        self.write(idem, move |tx| {
            let now = now_us();
            tx.prepare_cached(
                "INSERT INTO skus (sku, buckets, created_at_us, tracking) VALUES (?1, 1, ?2, 'units') ON CONFLICT DO NOTHING",
            )
            .and_then(|mut s| s.execute(params![req.sku, now]))
            .map_err(map_error)?;
            if tracks_units(tx, &req.sku)? != Some(true) {
                return Err(AllotError::wrong_tracking(&req.sku, false));
            }
            let mut created = 0u64;
            for u in &req.units {
                let n = tx
                    .prepare_cached(
                        "INSERT INTO units (sku, serial, location, lot, received_at, expires_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (sku, serial) DO NOTHING",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            req.sku,
                            u.serial,
                            u.location,
                            u.lot,
                            u.received_at.map(us).unwrap_or(now),
                            u.expires_at.map(us)
                        ])
                    })
                    .map_err(map_error)?;
                if n == 0 {
                    return Err(AllotError::AlreadyExists {
                        kind: "unit serial",
                        id: format!("{}/{}", req.sku, u.serial),
                    });
                }
                created += 1;
            }
            tx.prepare_cached(
                "INSERT INTO ledger (sku, delta, held_delta, kind, at_us) VALUES (?1, ?2, 0, 'units_received', ?3)",
            )
            .and_then(|mut s| s.execute(params![req.sku, created as i64, now]))
            .map_err(map_error)?;
            Ok(UnitsCreated { created })
        })
        .await
    }

    async fn claim_units(
        &self,
        req: UnitClaim,
        idem: Option<Idempotency<UnitAllocation>>,
    ) -> Result<Executed<UnitAllocation>> {
        if !self.supports_units(req.strategy) {
            return Err(AllotError::unsupported_strategy(req.strategy.name(), "sqlite"));
        }
        self.write(idem, move |tx| {
            let now = now_us();
            match tracks_units(tx, &req.sku)? {
                None => return Err(AllotError::not_found("sku", &req.sku)),
                Some(false) => return Err(AllotError::wrong_tracking(&req.sku, false)),
                Some(true) => {}
            }
            let select = format!(
                "SELECT id, serial, location, lot, received_at, expires_at FROM units
                  WHERE sku = ?1 AND status = 'available' ORDER BY {} LIMIT ?2",
                order_by_sql(&req.order_by, false)
            );
            let pick = |tx: &Connection| -> Result<Vec<Unit>> {
                tx.prepare_cached(&select)
                    .and_then(|mut s| {
                        s.query_map(params![req.sku, req.quantity], unit_from_row)?
                            .collect::<rusqlite::Result<Vec<_>>>()
                    })
                    .map_err(map_error)
            };
            let mut units = pick(tx)?;
            if (units.len() as i64) < req.quantity && expire_overdue_on(tx, &req.sku, now)? > 0 {
                units = pick(tx)?;
            }
            let got = units.len() as i64;
            if !claim_satisfied(got, req.quantity, req.allow_partial) {
                return Err(AllotError::InsufficientStock {
                    sku: req.sku.clone(),
                    requested: req.quantity,
                    available: got,
                });
            }
            let held = req.hold_ttl_ms.is_some();
            let status = if held { "held" } else { "allocated" };
            for u in &units {
                tx.prepare_cached("UPDATE units SET status = ?2, claim_id = ?3 WHERE id = ?1 AND status = 'available'")
                    .and_then(|mut s| s.execute(params![u.id, status, req.id]))
                    .map_err(map_error)?;
            }
            let lines = vec![AllocationLine {
                sku: req.sku.clone(),
                quantity: got,
            }];
            let expires_at = req.hold_ttl_ms.map(|t| allot_core::hold::expires_at(from_us(now), t));
            if let Some(exp) = expires_at {
                insert_hold(tx, &req.id, HoldKind::Units, req.strategy.name(), &lines, us(exp), now)?;
                insert_hold_line(tx, &req.id, &req.sku, -1, got, now)?;
            } else {
                let json = serde_json::to_string(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
                tx.prepare_cached(
                    "INSERT INTO allocations (id, status, strategy, lines, created_at_us) VALUES (?1, 'allocated', ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![req.id, req.strategy.name(), json, now]))
                .map_err(map_error)?;
                tx.prepare_cached(
                    "INSERT INTO ledger (sku, delta, held_delta, kind, ref, at_us) VALUES (?1, ?2, 0, 'allocation', ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![req.sku, -got, req.id, now]))
                .map_err(map_error)?;
            }
            Ok(UnitAllocation {
                id: req.id.clone(),
                sku: req.sku.clone(),
                status: status.into(),
                strategy: req.strategy.name().into(),
                units,
                expires_at,
                created_at: from_us(now),
            })
        })
        .await
    }
}
