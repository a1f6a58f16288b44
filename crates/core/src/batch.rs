//! The batch evaluator of the `batched` strategy (docs/internals.md, "Strategies", `batched`:
//! coalescing). Requests for the same keys that arrive while a transaction is in flight wait
//! for the next one; that transaction locks every key of the batch once, reads the balances,
//! and this module decides each request's outcome and the net change per key, exactly as if
//! the requests had run one at a time in batch order. Pure: no IO, no clock.
//!
//! The technique is group commit applied to the application's own requests (as a database
//! groups WAL flushes), or "flat combining" (Hendler, Incze, Shavit, Tzafrir, SPAA 2010): one
//! combiner applies the pending operations of many callers under one lock acquisition.

use crate::location::{available_in, plan_take, row_order, LineRule, Placement, RowLevel};
use std::collections::BTreeMap;

/// Balance of one (SKU, location), as locked by the batch (the sum of its buckets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Balance {
    /// Units on hand.
    pub on_hand: i64,
    /// Units held (by holds not yet confirmed or released).
    pub held: i64,
}

impl Balance {
    /// `on_hand - held`: what a new allocation or hold may take.
    pub fn available(&self) -> i64 {
        self.on_hand - self.held
    }
}

/// Change of one (SKU, location)'s balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delta {
    /// Change of `on_hand` (negative: taken).
    pub on_hand: i64,
    /// Change of `held`.
    pub held: i64,
}

/// What a request does to each of its lines (quantity > 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Take from available: `on_hand -= q`, needs `available >= q`.
    Allocate,
    /// Reserve: `held += q`, needs `available >= q`.
    Hold,
    /// Turn held units into an allocation: `on_hand -= q, held -= q`, needs `held >= q`.
    Confirm,
    /// Give held units back: `held -= q`, needs `held >= q`.
    Release,
}

/// One line of a batched request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchLine {
    /// The SKU.
    pub sku: String,
    /// Units, > 0.
    pub quantity: i64,
    /// Only this location (a pinned line; a confirm's or release's lines are each pinned
    /// to where the hold holds).
    pub pin: Option<String>,
}

/// One request of a batch: all of its lines succeed together or none does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOp {
    /// What it does.
    pub kind: OpKind,
    /// Its lines; an SKU may appear more than once.
    pub lines: Vec<BatchLine>,
    /// Where unpinned lines are placed.
    pub placement: Placement,
    /// Whether a line may come from several locations.
    pub allow_split: bool,
}

/// Why a request of a batch was refused (nothing of it applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The first line that could not be placed: `available` (allocate, hold: what the
    /// locations it may use had in all) or `held` (confirm, release) at that point of the
    /// batch, counting earlier lines of the request.
    Short {
        /// The key.
        sku: String,
        /// What the line asked for.
        requested: i64,
        /// What it had at that point.
        available: i64,
    },
    /// A key the batch did not lock (no such SKU).
    UnknownKey {
        /// The key.
        sku: String,
    },
    /// A line with a quantity <= 0 (validation lets none through; refused all the same).
    BadQuantity {
        /// The key.
        sku: String,
    },
}

/// The locked balances: per SKU, its locations with their priority and balance.
pub type Balances = BTreeMap<String, Vec<(String, i32, Balance)>>;

/// Where each line of an applied request was taken: `(location, quantity)` pieces per line.
pub type Placed = Vec<Vec<(String, i64)>>;

/// Outcomes in request order, and the net change per (SKU, location) of the applied ones.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchResult {
    /// `Ok(pieces)` applied, `Err` refused, one per request.
    pub outcomes: Vec<Result<Placed, Refusal>>,
    /// Net change per (SKU, location) (keys with no applied change are absent).
    pub net: BTreeMap<(String, String), Delta>,
}

fn line_delta(kind: OpKind, q: i64) -> Delta {
    match kind {
        OpKind::Allocate => Delta { on_hand: -q, held: 0 },
        OpKind::Hold => Delta { on_hand: 0, held: q },
        OpKind::Confirm => Delta { on_hand: -q, held: -q },
        OpKind::Release => Delta { on_hand: 0, held: -q },
    }
}

/// Decide every request of a batch against the locked `balances`, in order, placing each
/// line across its SKU's locations exactly as the placement would if the requests ran one at
/// a time ([`crate::location`]). A request is applied when every line can be placed given
/// everything applied before it in the batch and its own earlier lines; otherwise it is
/// refused and changes nothing (later requests see the balances without it). Balances never
/// leave `0 <= held <= on_hand`.
pub fn evaluate(balances: &Balances, ops: &[BatchOp]) -> BatchResult {
    let mut current: BTreeMap<String, Vec<RowLevel>> = balances
        .iter()
        .map(|(sku, locs)| {
            let rows = locs
                .iter()
                .enumerate()
                .map(|(i, (l, p, b))| RowLevel {
                    bucket: i as u32,
                    location: l.clone(),
                    priority: *p,
                    on_hand: b.on_hand,
                    held: b.held,
                })
                .collect();
            (sku.clone(), rows)
        })
        .collect();
    let mut result = BatchResult {
        outcomes: Vec::with_capacity(ops.len()),
        net: BTreeMap::new(),
    };
    for op in ops {
        let outcome = decide(&current, op).map(|(placed, touched)| {
            for (sku, rows) in touched {
                for (before, after) in current[&sku].iter().zip(&rows) {
                    let d = Delta {
                        on_hand: after.on_hand - before.on_hand,
                        held: after.held - before.held,
                    };
                    let n = result.net.entry((sku.clone(), after.location.clone())).or_default();
                    n.on_hand += d.on_hand;
                    n.held += d.held;
                }
                current.insert(sku, rows);
            }
            placed
        });
        result.outcomes.push(outcome);
    }
    result.net.retain(|_, d| *d != Delta::default());
    debug_assert_eq!(result.outcomes.len(), ops.len(), "one outcome per request");
    result
}

/// The request's placement and the rows of the SKUs it touched after it, if it fits
/// `current`; else why not (its first line that does not fit).
#[allow(clippy::type_complexity)]
fn decide(
    current: &BTreeMap<String, Vec<RowLevel>>,
    op: &BatchOp,
) -> Result<(Placed, BTreeMap<String, Vec<RowLevel>>), Refusal> {
    let mut scratch: BTreeMap<String, Vec<RowLevel>> = BTreeMap::new();
    let mut placed = Vec::with_capacity(op.lines.len());
    for line in &op.lines {
        let sku = line.sku.clone();
        if line.quantity <= 0 {
            return Err(Refusal::BadQuantity { sku });
        }
        let Some(locked) = current.get(&sku) else {
            return Err(Refusal::UnknownKey { sku });
        };
        let rows = scratch.entry(sku.clone()).or_insert_with(|| locked.clone());
        placed.push(place_line(rows, op, line)?);
    }
    Ok((placed, scratch))
}

/// Place one line on its SKU's `rows` (changed in place), or refuse it.
fn place_line(rows: &mut [RowLevel], op: &BatchOp, line: &BatchLine) -> Result<Vec<(String, i64)>, Refusal> {
    let q = line.quantity;
    let rule = LineRule {
        pin: line.pin.as_deref(),
        placement: &op.placement,
        allow_split: op.allow_split,
    };
    let order = row_order(rows, rule, 0);
    let pieces = match op.kind {
        OpKind::Allocate | OpKind::Hold => {
            plan_take(rows, &order, q, op.allow_split).ok_or_else(|| Refusal::Short {
                sku: line.sku.clone(),
                requested: q,
                available: available_in(rows, &order),
            })?
        }
        OpKind::Confirm | OpKind::Release => match order.iter().find(|&&i| rows[i].held >= q) {
            Some(&i) => vec![(i, q)],
            None => {
                return Err(Refusal::Short {
                    sku: line.sku.clone(),
                    requested: q,
                    available: order.iter().map(|&i| rows[i].held).sum(),
                })
            }
        },
    };
    let d = |n| line_delta(op.kind, n);
    Ok(pieces
        .into_iter()
        .map(|(i, n)| {
            rows[i].on_hand += d(n).on_hand;
            rows[i].held += d(n).held;
            (rows[i].location.clone(), n)
        })
        .collect())
}

/// One bucket of a key: `(bucket, on_hand, held)` as locked.
pub type BucketBalance = (u32, i64, i64);

/// Spread a key's net change over its buckets, keeping `0 <= held <= on_hand` in each, in
/// bucket order: first `held` goes down (releases, confirms) where something is held, then
/// `on_hand` goes down (allocations, confirms) out of what is available, then `held` goes up
/// (new holds) out of what is available; a rise of `on_hand` goes to the first bucket.
/// Returns the non-zero changes `(bucket, on_hand delta, held delta)`, or `None` when the
/// totals cannot bear `net` — never for the net of an [`evaluate`] run on these buckets'
/// totals: each step takes at most what the final totals leave, and a bucket-by-bucket greedy
/// over exact totals always fits.
pub fn spread(buckets: &[BucketBalance], net: Delta) -> Option<Vec<(u32, i64, i64)>> {
    let mut rows: Vec<(u32, i64, i64)> = buckets.to_vec();
    let mut changes: BTreeMap<u32, (i64, i64)> = BTreeMap::new();
    let mut held_down = (-net.held).max(0);
    let mut on_down = (-net.on_hand).max(0);
    let mut held_up = net.held.max(0);
    for r in rows.iter_mut() {
        let d = held_down.min(r.2);
        r.2 -= d;
        held_down -= d;
        changes.entry(r.0).or_default().1 -= d;
    }
    for r in rows.iter_mut() {
        let d = on_down.min(r.1 - r.2);
        r.1 -= d;
        on_down -= d;
        changes.entry(r.0).or_default().0 -= d;
    }
    for r in rows.iter_mut() {
        let d = held_up.min(r.1 - r.2);
        r.2 += d;
        held_up -= d;
        changes.entry(r.0).or_default().1 += d;
    }
    if net.on_hand > 0 {
        changes.entry(rows.first()?.0).or_default().0 += net.on_hand;
    }
    if held_down > 0 || on_down > 0 || held_up > 0 {
        return None;
    }
    let changes: Vec<(u32, i64, i64)> = changes
        .into_iter()
        .filter(|(_, (a, b))| *a != 0 || *b != 0)
        .map(|(k, (a, b))| (k, a, b))
        .collect();
    debug_assert_eq!(
        changes.iter().fold((0, 0), |(a, b), c| (a + c.1, b + c.2)),
        (net.on_hand, net.held),
        "a spread sums to the net change"
    );
    Some(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn b(on_hand: i64, held: i64) -> Balance {
        Balance { on_hand, held }
    }

    /// Balances with every SKU at the one location `L`.
    fn one_location(v: &[(&str, Balance)]) -> Balances {
        v.iter()
            .map(|(s, x)| (s.to_string(), vec![("L".to_string(), 0, *x)]))
            .collect()
    }

    fn op(kind: OpKind, lines: &[(&str, i64)]) -> BatchOp {
        BatchOp {
            kind,
            lines: lines
                .iter()
                .map(|(s, q)| BatchLine {
                    sku: s.to_string(),
                    quantity: *q,
                    pin: None,
                })
                .collect(),
            placement: Placement::Priority,
            allow_split: false,
        }
    }

    fn net(r: &BatchResult, sku: &str, loc: &str) -> Delta {
        r.net
            .get(&(sku.to_string(), loc.to_string()))
            .copied()
            .unwrap_or_default()
    }

    #[test]
    fn refused_requests_change_nothing_and_later_ones_see_that() {
        let bal = one_location(&[("a", b(3, 0)), ("b", b(1, 0))]);
        let ops = vec![
            op(OpKind::Allocate, &[("a", 2)]),
            op(OpKind::Allocate, &[("a", 1), ("b", 2)]), // b short: nothing of it applies
            op(OpKind::Allocate, &[("a", 1)]),           // still fits: the cart took nothing
            op(OpKind::Hold, &[("b", 1)]),
            op(OpKind::Allocate, &[("b", 1)]), // held now
            op(OpKind::Allocate, &[("zz", 1)]),
        ];
        let r = evaluate(&bal, &ops);
        assert_eq!(r.outcomes[0], Ok(vec![vec![("L".to_string(), 2)]]));
        assert_eq!(
            r.outcomes[1],
            Err(Refusal::Short {
                sku: "b".into(),
                requested: 2,
                available: 1
            })
        );
        assert!(r.outcomes[2].is_ok() && r.outcomes[3].is_ok());
        assert!(matches!(r.outcomes[4], Err(Refusal::Short { .. })));
        assert_eq!(r.outcomes[5], Err(Refusal::UnknownKey { sku: "zz".into() }));
        assert_eq!(net(&r, "a", "L"), Delta { on_hand: -3, held: 0 });
        assert_eq!(net(&r, "b", "L"), Delta { on_hand: 0, held: 1 });
    }

    #[test]
    fn a_cart_naming_a_key_twice_counts_its_earlier_line() {
        let bal = one_location(&[("a", b(3, 0))]);
        let r = evaluate(&bal, &[op(OpKind::Allocate, &[("a", 2), ("a", 2)])]);
        assert_eq!(
            r.outcomes[0],
            Err(Refusal::Short {
                sku: "a".into(),
                requested: 2,
                available: 1
            })
        );
        assert!(r.net.is_empty());
    }

    #[test]
    fn lines_are_placed_across_locations_one_request_at_a_time() {
        let bal: Balances = BTreeMap::from([(
            "a".to_string(),
            vec![("E".to_string(), 2, b(5, 0)), ("W".to_string(), 1, b(3, 0))],
        )]);
        let mut split = op(OpKind::Allocate, &[("a", 4)]);
        split.allow_split = true;
        let mut most = op(OpKind::Allocate, &[("a", 2)]);
        most.placement = Placement::MostAvailable;
        let ops = vec![
            op(OpKind::Allocate, &[("a", 2)]),
            split,
            op(OpKind::Allocate, &[("a", 3)]),
            most,
        ];
        let r = evaluate(&bal, &ops);
        let at = |l: &str, n| (l.to_string(), n);
        assert_eq!(r.outcomes[0], Ok(vec![vec![at("W", 2)]])); // priority: W first
        assert_eq!(r.outcomes[1], Ok(vec![vec![at("W", 1), at("E", 3)]]));
        assert!(r.outcomes[2].is_err()); // 2 left at E, none at W, no split
        assert_eq!(r.outcomes[3], Ok(vec![vec![at("E", 2)]]));
        assert_eq!(net(&r, "a", "W"), Delta { on_hand: -3, held: 0 });
        assert_eq!(net(&r, "a", "E"), Delta { on_hand: -5, held: 0 });
    }

    /// The model: each request alone, in order, line by line on a scratch copy of plain rows
    /// with the same placement functions.
    fn model(bal: &Balances, ops: &[BatchOp]) -> (Vec<bool>, BTreeMap<(String, String), Balance>) {
        let mut state: BTreeMap<(String, String), Balance> = bal
            .iter()
            .flat_map(|(s, ls)| ls.iter().map(move |(l, _, x)| ((s.clone(), l.clone()), *x)))
            .collect();
        let mut ok = Vec::new();
        for op in ops {
            let mut scratch = state.clone();
            let mut fits = true;
            for line in &op.lines {
                let Some(locs) = bal.get(&line.sku) else {
                    fits = false;
                    break;
                };
                let mut rows: Vec<RowLevel> = locs
                    .iter()
                    .enumerate()
                    .map(|(i, (l, p, _))| {
                        let x = scratch[&(line.sku.clone(), l.clone())];
                        RowLevel {
                            bucket: i as u32,
                            location: l.clone(),
                            priority: *p,
                            on_hand: x.on_hand,
                            held: x.held,
                        }
                    })
                    .collect();
                match place_line(&mut rows, op, line) {
                    Ok(_) => {
                        for r in rows {
                            scratch.insert((line.sku.clone(), r.location), b(r.on_hand, r.held));
                        }
                    }
                    Err(_) => {
                        fits = false;
                        break;
                    }
                }
            }
            if fits {
                state = scratch;
            }
            ok.push(fits);
        }
        (ok, state)
    }

    fn kind() -> impl Strategy<Value = OpKind> {
        prop_oneof![
            Just(OpKind::Allocate),
            Just(OpKind::Hold),
            Just(OpKind::Confirm),
            Just(OpKind::Release)
        ]
    }

    fn scenario() -> impl Strategy<Value = (Balances, Vec<BatchOp>)> {
        let keys = ["a", "b", "c", "d"];
        let locs = ["E", "W", "N"];
        let loc = (0i64..20, 0i64..20, 0i32..3).prop_map(|(x, y, p)| (b(x.max(y), x.min(y)), p));
        let bal = proptest::collection::vec(proptest::collection::vec(loc, 1..4), 3).prop_map(move |v| {
            v.into_iter()
                .enumerate()
                .map(|(i, ls)| {
                    let rows = ls
                        .into_iter()
                        .enumerate()
                        .map(|(j, (x, p))| (locs[j].to_string(), p, x))
                        .collect();
                    (keys[i].to_string(), rows)
                })
                .collect::<Balances>()
        });
        // "d" is never a locked key: requests naming it must be refused.
        let line = (0usize..4, 1i64..6, proptest::option::of(0usize..3)).prop_map(move |(k, q, pin)| BatchLine {
            sku: keys[k].to_string(),
            quantity: q,
            pin: pin.map(|p| locs[p].to_string()),
        });
        let placement = prop_oneof![
            Just(Placement::Priority),
            Just(Placement::MostAvailable),
            Just(Placement::Ranked(vec!["W".into(), "E".into()]))
        ];
        let ops = proptest::collection::vec(
            (kind(), proptest::collection::vec(line, 1..4), placement, any::<bool>()).prop_map(
                |(kind, lines, placement, allow_split)| BatchOp {
                    kind,
                    lines,
                    placement,
                    allow_split,
                },
            ),
            0..40,
        );
        (bal, ops)
    }

    proptest! {
        #[test]
        fn evaluate_matches_one_at_a_time((bal, ops) in scenario()) {
            let r = evaluate(&bal, &ops);
            let (ok, end) = model(&bal, &ops);
            prop_assert_eq!(r.outcomes.iter().map(|o| o.is_ok()).collect::<Vec<_>>(), ok);
            for (sku, locs) in &bal {
                for (loc, _, start) in locs {
                    let d = net(&r, sku, loc);
                    let got = b(start.on_hand + d.on_hand, start.held + d.held);
                    prop_assert_eq!(got, end[&(sku.clone(), loc.clone())]);
                    prop_assert!(got.held >= 0 && got.held <= got.on_hand);
                }
            }
            for (o, op) in r.outcomes.iter().zip(&ops) {
                if let Ok(placed) = o {
                    for (pieces, line) in placed.iter().zip(&op.lines) {
                        prop_assert_eq!(pieces.iter().map(|p| p.1).sum::<i64>(), line.quantity);
                        prop_assert!(op.allow_split || pieces.len() == 1);
                    }
                }
            }
        }

        #[test]
        fn spread_keeps_every_bucket_sound((bal, ops) in scenario(), split in proptest::collection::vec(0u8..4, 3)) {
            let r = evaluate(&bal, &ops);
            for (i, (sku, locs)) in bal.iter().enumerate() {
                for (loc, _, total) in locs {
                    // The key's totals over 1..=4 buckets: held and the rest dealt out unevenly.
                    let n = u32::from(split[i % split.len()]) + 1;
                    let mut buckets: Vec<BucketBalance> = (0..n).map(|k| (k, 0, 0)).collect();
                    for u in 0..total.held { buckets[(u as usize * 7) % n as usize].1 += 1; buckets[(u as usize * 7) % n as usize].2 += 1; }
                    for u in 0..total.available() { buckets[(u as usize * 3 + 1) % n as usize].1 += 1; }
                    let net = net(&r, sku, loc);
                    let changes = spread(&buckets, net);
                    prop_assert!(changes.is_some(), "{sku}: {net:?} over {buckets:?}");
                    let (mut s_on, mut s_held) = (0, 0);
                    for (bucket, d_on, d_held) in changes.unwrap() {
                        let row = buckets.iter_mut().find(|r| r.0 == bucket).unwrap();
                        row.1 += d_on;
                        row.2 += d_held;
                        s_on += d_on;
                        s_held += d_held;
                        prop_assert!(row.2 >= 0 && row.2 <= row.1, "bucket {row:?}");
                    }
                    prop_assert_eq!((s_on, s_held), (net.on_hand, net.held));
                }
            }
        }
    }
}
