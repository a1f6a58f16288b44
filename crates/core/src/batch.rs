//! The batch evaluator of the `batched` strategy (ARCHITECTURE.md, "Strategies", `batched`:
//! coalescing). Requests for the same keys that arrive while a transaction is in flight wait
//! for the next one; that transaction locks every key of the batch once, reads the balances,
//! and this module decides each request's outcome and the net change per key, exactly as if
//! the requests had run one at a time in batch order. Pure: no IO, no clock.
//!
//! The technique is group commit applied to the application's own requests (as a database
//! groups WAL flushes), or "flat combining" (Hendler, Incze, Shavit, Tzafrir, SPAA 2010): one
//! combiner applies the pending operations of many callers under one lock acquisition.

use std::collections::BTreeMap;

/// Balance of one key (an SKU's totals over its buckets), as locked by the batch.
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

/// Change of one key's balance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delta {
    /// Change of `on_hand` (negative: taken).
    pub on_hand: i64,
    /// Change of `held`.
    pub held: i64,
}

/// What a request does to each of its lines (`(sku, quantity)`, quantity > 0).
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

/// One request of a batch: all of its lines succeed together or none does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOp {
    /// What it does.
    pub kind: OpKind,
    /// `(sku, quantity)` lines; an SKU may appear more than once.
    pub lines: Vec<(String, i64)>,
}

/// Why a request of a batch was refused (nothing of it applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The first line whose key had too little: `available` (allocate, hold) or `held`
    /// (confirm, release) at that point of the batch, counting earlier lines of the request.
    Short {
        /// The key.
        sku: String,
        /// What the request asked of it in all (its lines on that key summed).
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

/// Outcomes in request order, and the net change per key of the applied ones.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchResult {
    /// `Ok(())` applied, `Err` refused, one per request.
    pub outcomes: Vec<Result<(), Refusal>>,
    /// Net change per key (keys with no applied change are absent).
    pub net: BTreeMap<String, Delta>,
}

fn line_delta(kind: OpKind, q: i64) -> Delta {
    match kind {
        OpKind::Allocate => Delta { on_hand: -q, held: 0 },
        OpKind::Hold => Delta { on_hand: 0, held: q },
        OpKind::Confirm => Delta { on_hand: -q, held: -q },
        OpKind::Release => Delta { on_hand: 0, held: -q },
    }
}

/// Decide every request of a batch against the locked `balances`, in order. A request is
/// applied when each of its keys can bear the sum of its lines on that key given everything
/// applied before it in the batch; otherwise it is refused and changes nothing (later
/// requests see the balances without it). Balances never go below `0 <= held <= on_hand`.
pub fn evaluate(balances: &BTreeMap<String, Balance>, ops: &[BatchOp]) -> BatchResult {
    let mut current = balances.clone();
    let mut result = BatchResult {
        outcomes: Vec::with_capacity(ops.len()),
        net: BTreeMap::new(),
    };
    for op in ops {
        let outcome = decide(&current, op);
        if let Ok(per_key) = &outcome {
            for (sku, d) in per_key {
                let b = current.get_mut(sku).expect("decide checked the key");
                b.on_hand += d.on_hand;
                b.held += d.held;
                let n = result.net.entry(sku.clone()).or_default();
                n.on_hand += d.on_hand;
                n.held += d.held;
            }
        }
        result.outcomes.push(outcome.map(|_| ()));
    }
    result.net.retain(|_, d| *d != Delta::default());
    result
}

/// The request's change per key if it fits `current`, else why not (first key in line order).
fn decide(current: &BTreeMap<String, Balance>, op: &BatchOp) -> Result<BTreeMap<String, Delta>, Refusal> {
    let mut per_key: BTreeMap<String, Delta> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (sku, q) in &op.lines {
        if *q <= 0 {
            return Err(Refusal::BadQuantity { sku: sku.clone() });
        }
        if !current.contains_key(sku) {
            return Err(Refusal::UnknownKey { sku: sku.clone() });
        }
        let d = line_delta(op.kind, *q);
        let e = per_key.entry(sku.clone()).or_insert_with(|| {
            order.push(sku);
            Delta::default()
        });
        e.on_hand += d.on_hand;
        e.held += d.held;
    }
    for sku in order {
        let b = current[sku];
        let d = per_key[sku];
        let (requested, has) = match op.kind {
            OpKind::Allocate => (-d.on_hand, b.available()),
            OpKind::Hold => (d.held, b.available()),
            OpKind::Confirm | OpKind::Release => (-d.held, b.held),
        };
        if has < requested {
            return Err(Refusal::Short {
                sku: sku.to_string(),
                requested,
                available: has,
            });
        }
    }
    Ok(per_key)
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
    Some(
        changes
            .into_iter()
            .filter(|(_, (a, b))| *a != 0 || *b != 0)
            .map(|(k, (a, b))| (k, a, b))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn b(on_hand: i64, held: i64) -> Balance {
        Balance { on_hand, held }
    }

    fn op(kind: OpKind, lines: &[(&str, i64)]) -> BatchOp {
        BatchOp {
            kind,
            lines: lines.iter().map(|(s, q)| (s.to_string(), *q)).collect(),
        }
    }

    #[test]
    fn refused_requests_change_nothing_and_later_ones_see_that() {
        let bal = BTreeMap::from([("a".to_string(), b(3, 0)), ("b".to_string(), b(1, 0))]);
        let ops = vec![
            op(OpKind::Allocate, &[("a", 2)]),
            op(OpKind::Allocate, &[("a", 1), ("b", 2)]), // b short: nothing of it applies
            op(OpKind::Allocate, &[("a", 1)]),           // still fits: the cart took nothing
            op(OpKind::Hold, &[("b", 1)]),
            op(OpKind::Allocate, &[("b", 1)]), // held now
            op(OpKind::Allocate, &[("zz", 1)]),
        ];
        let r = evaluate(&bal, &ops);
        assert_eq!(r.outcomes[0], Ok(()));
        assert_eq!(
            r.outcomes[1],
            Err(Refusal::Short {
                sku: "b".into(),
                requested: 2,
                available: 1
            })
        );
        assert_eq!(r.outcomes[2], Ok(()));
        assert_eq!(r.outcomes[3], Ok(()));
        assert!(matches!(r.outcomes[4], Err(Refusal::Short { .. })));
        assert_eq!(r.outcomes[5], Err(Refusal::UnknownKey { sku: "zz".into() }));
        assert_eq!(r.net["a"], Delta { on_hand: -3, held: 0 });
        assert_eq!(r.net["b"], Delta { on_hand: 0, held: 1 });
    }

    #[test]
    fn a_cart_naming_a_key_twice_needs_the_sum() {
        let bal = BTreeMap::from([("a".to_string(), b(3, 0))]);
        let r = evaluate(&bal, &[op(OpKind::Allocate, &[("a", 2), ("a", 2)])]);
        assert_eq!(
            r.outcomes[0],
            Err(Refusal::Short {
                sku: "a".into(),
                requested: 4,
                available: 3
            })
        );
        assert!(r.net.is_empty());
    }

    /// The model: each request alone, in order, on a plain map of balances, checking line by
    /// line on a scratch copy (a different shape from `decide`'s per-key sums).
    fn model(bal: &BTreeMap<String, Balance>, ops: &[BatchOp]) -> (Vec<bool>, BTreeMap<String, Balance>) {
        let mut state = bal.clone();
        let mut ok = Vec::new();
        for op in ops {
            let mut scratch = state.clone();
            let mut fits = true;
            for (sku, q) in &op.lines {
                let Some(x) = scratch.get_mut(sku) else {
                    fits = false;
                    break;
                };
                let fine = match op.kind {
                    OpKind::Allocate => {
                        x.on_hand -= q;
                        x.on_hand >= x.held
                    }
                    OpKind::Hold => {
                        x.held += q;
                        x.held <= x.on_hand
                    }
                    OpKind::Confirm => {
                        x.on_hand -= q;
                        x.held -= q;
                        x.held >= 0
                    }
                    OpKind::Release => {
                        x.held -= q;
                        x.held >= 0
                    }
                };
                if !fine || *q <= 0 {
                    fits = false;
                    break;
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

    fn scenario() -> impl Strategy<Value = (BTreeMap<String, Balance>, Vec<BatchOp>)> {
        let keys = ["a", "b", "c", "d"];
        let bal = proptest::collection::vec((0i64..20, 0i64..20), 3).prop_map(move |v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (x, y))| (keys[i].to_string(), b(x.max(y), x.min(y))))
                .collect::<BTreeMap<_, _>>()
        });
        // "d" is never a locked key: requests naming it must be refused.
        let line = (0usize..4, 1i64..6).prop_map(move |(k, q)| (keys[k].to_string(), q));
        let ops = proptest::collection::vec(
            (kind(), proptest::collection::vec(line, 1..4)).prop_map(|(kind, lines)| BatchOp { kind, lines }),
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
            for (sku, start) in &bal {
                let d = r.net.get(sku).copied().unwrap_or_default();
                let got = b(start.on_hand + d.on_hand, start.held + d.held);
                prop_assert_eq!(got, end[sku]);
                prop_assert!(got.held >= 0 && got.held <= got.on_hand);
            }
        }

        #[test]
        fn spread_keeps_every_bucket_sound((bal, ops) in scenario(), split in proptest::collection::vec(0u8..4, 3)) {
            let r = evaluate(&bal, &ops);
            for (i, (sku, total)) in bal.iter().enumerate() {
                // The key's totals over 1..=4 buckets: held and the rest dealt out unevenly.
                let n = u32::from(split[i % split.len()]) + 1;
                let mut buckets: Vec<BucketBalance> = (0..n).map(|k| (k, 0, 0)).collect();
                for u in 0..total.held { buckets[(u as usize * 7) % n as usize].1 += 1; buckets[(u as usize * 7) % n as usize].2 += 1; }
                for u in 0..total.available() { buckets[(u as usize * 3 + 1) % n as usize].1 += 1; }
                let net = r.net.get(sku).copied().unwrap_or_default();
                let changes = spread(&buckets, net);
                prop_assert!(changes.is_some(), "{sku}: {net:?} over {buckets:?}");
                let changes = changes.unwrap();
                let (mut s_on, mut s_held) = (0, 0);
                for (bucket, d_on, d_held) in changes {
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
