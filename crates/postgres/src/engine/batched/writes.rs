//! What one batch writes: the columns of [`SQL_BATCH_WRITE`] and [`SQL_BATCH_WRITE_UNLOCKED`],
//! filled request by request.

use allot_core::batch::OpKind;
use allot_core::hold::event::HoldFacts;
use allot_core::hold::HoldStatus;
use allot_core::store::StoredResponse;
use allot_core::TakenWith;
use allot_core::{Hold, LedgerKind};
use chrono::{DateTime, Utc};

type Param = dyn tokio_postgres::types::ToSql + Sync;

/// Everything a batch writes, in one statement (one round trip), as [`SQL_BATCH_WRITE`] and
/// [`SQL_BATCH_WRITE_UNLOCKED`] say: `$ret` follows every CTE's body, `$gate` the stock
/// UPDATE's condition, `$led_gate` the ledger INSERT's source, and `$result` is the outer
/// query. Data-modifying CTEs all run, to
/// completion, whether or not the outer query reads them (PostgreSQL docs, 7.8.4).
/// - `$1..$4` the net change of every bucket: sku, bucket, on_hand delta, held delta;
/// - `$5..$9` the ledger: sku, delta, held delta, kind, ref;
/// - `$10..$12` allocations (id, strategy, lines), `$13` now;
/// - `$14..$16` new holds (id, lines, expires_at), `$17..$19` their lines (hold, sku, q; bucket 0);
/// - `$20, $21` finished holds (id, new status), conditional on `status = 'held'`;
/// - `$22..$25` stored responses of idempotent requests;
/// - `$26` the ledger rows' actors (beside `$5..$9`);
/// - `$27` the batch's tenant (every row of a batch is of one tenant);
/// - `$28` the ledger rows' locations;
/// - `$29` the tenant's ledger sequence (OID): ids drawn here, not by the V14 trigger, so no
///   per-row trigger runs while the batch holds its SKUs' rows.
macro_rules! batch_write {
    ($ret:literal, $led_gate:literal, $gate:literal, $result:literal) => {
        concat!(
            "WITH alo AS (
    ",
            crate::engine::records::insert_allocation!(),
            "
    SELECT $27, t.id, 'allocated', t.st, t.lines, $13
      FROM unnest($10::text[], $11::text[], $12::jsonb[]) AS t(id, st, lines)",
            $ret,
            "),
hin AS (
    INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at, created_at)
    SELECT $27, t.id, 'stock', 'held', 'batched', t.lines, t.exp, $13
      FROM unnest($14::text[], $15::jsonb[], $16::timestamptz[]) AS t(id, lines, exp)",
            $ret,
            "),
hln AS (
    INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity)
    SELECT $27, t.h, t.sku, 0, t.q FROM unnest($17::text[], $18::text[], $19::int8[]) AS t(h, sku, q)",
            $ret,
            "),
hup AS (
    UPDATE holds h SET status = t.st, finished_at = $13
      FROM unnest($20::text[], $21::text[]) AS t(id, st)
     WHERE h.tenant = $27 AND h.id = t.id AND h.status = 'held'",
            $ret,
            "),
idk AS (
    INSERT INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at)
    SELECT $27, *, $13 FROM unnest($22::text[], $23::text[], $24::int4[], $25::bytea[])",
            $ret,
            "),
upd AS (
    UPDATE stock s SET on_hand = s.on_hand + d.d_on, held = s.held + d.d_held, version = s.version + 1
      FROM unnest($1::text[], $2::int4[], $3::int8[], $4::int8[]) AS d(sku, b, d_on, d_held)
     WHERE s.tenant = $27 AND s.sku = d.sku AND s.bucket = d.b",
            $gate,
            $ret,
            "),
led AS (
    INSERT INTO ledger (id, tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT nextval($29::oid::regclass), $27, *, $13
      FROM unnest($5::text[], $6::int8[], $7::int8[], $8::text[], $9::text[], $26::text[], $28::text[])",
            $led_gate,
            $ret,
            ")
",
            $result
        )
    };
}

/// The write of a batch that locked its stock rows first ([`super::txn::Read::Locking`]):
/// the 29 parameters of [`batch_write`].
pub(super) const SQL_BATCH_WRITE: &str = batch_write!("", "", "", "SELECT 1");

/// The write of a batch that read its stock row without a lock
/// ([`super::txn::Read::Optimistic`]), with `$30`, how many stock rows `$1..$4` name. The
/// records come first, then the stock row, then the ledger: the stock UPDATE's condition
/// reads what the record CTEs returned, and the ledger INSERT's reads what the UPDATE
/// returned, so each runs to completion before the next (an uncorrelated subquery is an
/// InitPlan, evaluated before the first row is tested: PostgreSQL docs, 14.1). The batch
/// holds the row's lock only from the UPDATE to `COMMIT`, and still draws its ledger ids and
/// (through the AFTER STATEMENT trigger `ledger_events`) its marks under that lock, as every
/// writer of a SKU does: a SKU's ledger ids stay in commit order, which paging the ledger by
/// id (`after`) relies on. Two refusals end the statement with nothing applied: the stock
/// table's CHECKs (`on_hand >= 0`, `held <= on_hand`: V1) refuse a change that would
/// oversell (23514, check_violation), and a stock row not found divides by zero (22012); the
/// batch then runs again locking.
pub(super) const SQL_BATCH_WRITE_UNLOCKED: &str = batch_write!(
    "
    RETURNING 1",
    "
     WHERE (SELECT count(*) FROM upd) >= 0",
    "
       AND (SELECT count(*) FROM alo) + (SELECT count(*) FROM hin) + (SELECT count(*) FROM hln)
         + (SELECT count(*) FROM hup) + (SELECT count(*) FROM idk) >= 0",
    "SELECT 1 / ((SELECT count(*) FROM upd) = $30)::int"
);

/// What the rows of a batch's writes hold, column by column (see [`SQL_BATCH_WRITE`]).
#[derive(Default)]
pub(super) struct Writes {
    pub(super) u_sku: Vec<String>,
    pub(super) u_bucket: Vec<i32>,
    pub(super) u_on: Vec<i64>,
    pub(super) u_held: Vec<i64>,
    pub(super) l_sku: Vec<String>,
    l_delta: Vec<i64>,
    l_held: Vec<i64>,
    l_kind: Vec<&'static str>,
    l_ref: Vec<String>,
    l_actor: Vec<Option<String>>,
    l_location: Vec<String>,
    a_id: Vec<String>,
    a_strategy: Vec<&'static str>,
    a_lines: Vec<serde_json::Value>,
    h_id: Vec<String>,
    h_lines: Vec<serde_json::Value>,
    h_expires: Vec<DateTime<Utc>>,
    hl_hold: Vec<String>,
    hl_sku: Vec<String>,
    hl_q: Vec<i64>,
    f_id: Vec<String>,
    f_status: Vec<&'static str>,
    k_key: Vec<String>,
    k_fp: Vec<String>,
    k_status: Vec<i32>,
    k_body: Vec<Vec<u8>>,
    /// The events of the holds the batch makes or finishes (id, type, data):
    /// [`SQL_HOLD_EVENTS`], after the write.
    e_id: Vec<String>,
    e_type: Vec<&'static str>,
    e_data: Vec<tokio_postgres::types::Json<Box<serde_json::value::RawValue>>>,
    /// Mixed holds' rows (id, lines, expires_at): [`SQL_MIXED_HOLDS`], before the write.
    m_id: Vec<String>,
    m_lines: Vec<serde_json::Value>,
    m_expires: Vec<DateTime<Utc>>,
}

/// The rows of a batch's mixed holds (`kind` `mixed`), written before [`SQL_BATCH_WRITE`]
/// (which writes `stock` ones): `$1..$3` id, lines, expires_at, `$4` now, `$5` the tenant.
/// Their unit and booking lines were written by their own statements in the batch
/// (`super::txn::mixed`); their stock lines and ledger entries go in the batch's write.
pub(super) const SQL_MIXED_HOLDS: &str =
    "INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at, created_at)
     SELECT $5, t.id, 'mixed', 'held', 'batched', t.lines, t.exp, $4
       FROM unnest($1::text[], $2::jsonb[], $3::timestamptz[]) AS t(id, lines, exp)";

/// The events of the holds a batch makes (`hold.created`) and finishes (`hold.confirmed`,
/// `hold.released`), written by the lane itself in one statement after the batch's write
/// (so after its ledger entries' marks, as V39's deferred triggers order them), instead of
/// one PL/pgSQL call per hold at the commit with the SKU's rows locked (V42: the triggers
/// skip the rows of a transaction that set `allot.hold_events` to its own id, as a lane's
/// does before its first hold's row): `$1` the tenant, `$2` now (the rows' `created_at` and
/// `finished_at`), `$3..$5` each event's hold id, type and data
/// ([`allot_core::hold::event::hold_event_data`]).
pub(super) const SQL_HOLD_EVENTS: &str = "INSERT INTO events (tenant, type, object, data, at)
     SELECT $1, t.type, t.id, t.data, $2 FROM unnest($3::text[], $4::text[], $5::json[]) AS t(id, type, data)";

impl Writes {
    /// The ledger entries of one request: one per piece `(sku, location, quantity)`.
    pub(super) fn ledger(&mut self, pieces: &[(&str, &str, i64)], kind: OpKind, reference: &str, actor: Option<&str>) {
        let (label, on, held) = match kind {
            OpKind::Allocate => (LedgerKind::Allocation, -1, 0),
            OpKind::Hold => (LedgerKind::Hold, 0, 1),
            OpKind::Confirm => (LedgerKind::HoldConfirmed, -1, -1),
            OpKind::Release => (LedgerKind::HoldReleased, 0, -1),
        };
        for &(sku, location, q) in pieces {
            self.l_sku.push(sku.to_string());
            self.l_location.push(location.to_string());
            self.l_delta.push(on * q);
            self.l_held.push(held * q);
            self.l_kind.push(label.as_str());
            self.l_ref.push(reference.to_string());
            self.l_actor.push(actor.map(str::to_string));
        }
    }

    /// The (SKU, location) of each piece the batch's releases give back: where what their
    /// SKUs owe is filled, after the write (`allot_fill_backorders`, V48).
    pub(super) fn released_at(&self) -> (Vec<&str>, Vec<&str>) {
        let released = LedgerKind::HoldReleased.as_str();
        self.l_kind
            .iter()
            .zip(self.l_sku.iter().zip(&self.l_location))
            .filter(|(k, _)| **k == released)
            .map(|(_, (s, l))| (s.as_str(), l.as_str()))
            .unzip()
    }

    /// An allocation row (a new one, or a confirmed hold's).
    pub(super) fn allocation(&mut self, id: &str, strategy: TakenWith, lines_json: serde_json::Value) {
        self.a_id.push(id.to_string());
        self.a_strategy.push(strategy.name());
        self.a_lines.push(lines_json);
    }

    /// A new hold's row and the rows of its stock lines `stock` (bucket 0: batches hold on
    /// one-bucket SKUs only); a mixed hold's row goes to [`SQL_MIXED_HOLDS`], its unit lines'
    /// rows were written by their claims.
    pub(super) fn new_hold(
        &mut self,
        hold: &Hold,
        stock: &[allot_core::AllocationLine],
        lines_json: serde_json::Value,
    ) {
        for l in stock {
            self.hl_hold.push(hold.id.clone());
            self.hl_sku.push(l.sku.clone());
            self.hl_q.push(l.quantity);
        }
        self.hold_event(HoldFacts {
            id: &hold.id,
            kind: hold.kind,
            status: HoldStatus::Held,
            expires_at: &hold.expires_at,
            lines: &lines_json,
            bookings: hold.bookings.as_deref().unwrap_or_default(),
        });
        let (id, lines, expires) = match hold.kind {
            allot_core::hold::HoldKind::Mixed => (&mut self.m_id, &mut self.m_lines, &mut self.m_expires),
            _ => (&mut self.h_id, &mut self.h_lines, &mut self.h_expires),
        };
        id.push(hold.id.clone());
        lines.push(lines_json);
        expires.push(hold.expires_at);
    }

    /// Whether the batch makes or finishes holds, whose events it writes ([`SQL_HOLD_EVENTS`]).
    pub(super) fn has_hold_events(&self) -> bool {
        !self.e_id.is_empty()
    }

    /// The 5 parameters of [`SQL_HOLD_EVENTS`].
    pub(super) fn hold_event_params<'a>(&'a self, now: &'a DateTime<Utc>, tenant: &'a String) -> [&'a Param; 5] {
        [tenant, now, &self.e_id, &self.e_type, &self.e_data]
    }

    /// Whether the batch has mixed holds to write ([`SQL_MIXED_HOLDS`]).
    pub(super) fn has_mixed_holds(&self) -> bool {
        !self.m_id.is_empty()
    }

    /// The 5 parameters of [`SQL_MIXED_HOLDS`].
    pub(super) fn mixed_params<'a>(&'a self, now: &'a DateTime<Utc>, tenant: &'a String) -> [&'a Param; 5] {
        [&self.m_id, &self.m_lines, &self.m_expires, now, tenant]
    }

    /// A stock hold finished as `status` (applied only where it is still `held`: the batch
    /// locked it `held`), with its row's `lines` and expiry for its event.
    pub(super) fn finish(
        &mut self,
        id: &str,
        status: HoldStatus,
        (lines, expires_at): (&serde_json::Value, &DateTime<Utc>),
    ) {
        self.f_id.push(id.to_string());
        self.f_status.push(status.as_str());
        self.hold_event(HoldFacts {
            id,
            kind: allot_core::hold::HoldKind::Stock,
            status,
            expires_at,
            lines,
            bookings: &[],
        });
    }

    /// A hold's own event, `hold.created` for `held`, else `hold.<status>`.
    fn hold_event(&mut self, facts: HoldFacts<'_>) {
        self.e_type.push(match facts.status {
            HoldStatus::Held => "hold.created",
            HoldStatus::Confirmed => "hold.confirmed",
            HoldStatus::Released => "hold.released",
            HoldStatus::Expired => "hold.expired",
        });
        self.e_id.push(facts.id.to_string());
        self.e_data
            .push(tokio_postgres::types::Json(allot_core::hold::event::hold_event_data(
                facts,
            )));
    }

    /// The stored response of an idempotent request.
    pub(super) fn stored_response(&mut self, key: &str, fingerprint: &str, resp: StoredResponse) {
        self.k_key.push(key.to_string());
        self.k_fp.push(fingerprint.to_string());
        self.k_status.push(i32::from(resp.code));
        self.k_body.push(resp.body);
    }

    /// The 30 parameters of [`SQL_BATCH_WRITE_UNLOCKED`] (the first 29 are
    /// [`SQL_BATCH_WRITE`]'s), `now` as `$13`, `tenant` as `$27`, the ledger sequence as
    /// `$29`, `stock_rows` (the length of `u_sku`) as `$30`.
    pub(super) fn params<'a>(
        &'a self,
        now: &'a DateTime<Utc>,
        tenant: &'a String,
        (ledger_sequence, stock_rows): (&'a u32, &'a i64),
    ) -> [&'a Param; 30] {
        [
            &self.u_sku,
            &self.u_bucket,
            &self.u_on,
            &self.u_held,
            &self.l_sku,
            &self.l_delta,
            &self.l_held,
            &self.l_kind,
            &self.l_ref,
            &self.a_id,
            &self.a_strategy,
            &self.a_lines,
            now,
            &self.h_id,
            &self.h_lines,
            &self.h_expires,
            &self.hl_hold,
            &self.hl_sku,
            &self.hl_q,
            &self.f_id,
            &self.f_status,
            &self.k_key,
            &self.k_fp,
            &self.k_status,
            &self.k_body,
            &self.l_actor,
            tenant,
            &self.l_location,
            ledger_sequence,
            stock_rows,
        ]
    }
}
