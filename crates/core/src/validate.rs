//! Validation of request bodies against [`Limits`](crate::support::limits::Limits), one entry point per body.
//! Pure functions: a body in, a validated request or an [`AllotError`](crate::support::error::AllotError) out.
//! Each domain module owns the validation of its bodies (`model::validate`, `hold::validate`,
//! …) and the rules they share are in `support::checks`; this module names them all in one
//! place.

pub use crate::booking::validate::{booking, reschedule as reschedule_booking, window};
pub use crate::hold::validate::{confirm, extend, hold, hold_with};
pub use crate::job::validate::{
    bulk, claim, complete, completions, enqueue, fail, job, lease_ms, lease_token, metadata_filter, payload_filter,
    queue_settings, reschedule, schedule, snooze, tags, tick_job, wait,
};
pub use crate::kit::validate::kit;
pub use crate::location::validate::{location, set_level, transfer};
pub use crate::model::validate::{adjustment, allocation, allocation_with, create_sku};
pub use crate::receiving::validate::{incoming, receipt, reference};
pub use crate::returns::validate::returns;
pub use crate::states::validate::movement;
pub use crate::support::checks::{idempotency_key, name, page_size};
pub use crate::unit::validate::{add_units, unit_claim};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::booking::BookingBody;
    use crate::hold::HoldBody;
    use crate::job::ClaimStrategy;
    use crate::location::{LocationBody, Placement, PlacementBody, SetLevelBody, TransferBody};
    use crate::model::{AdjustmentBody, AllocationBody, CreateSkuBody, LineBody};
    use crate::strategy::Strategy;
    use crate::strategy::{BookingStrategy, UnitStrategy};
    use crate::support::limits::Limits;
    use crate::unit::{NewUnit, UnitAllocationBody, UnitColumn, UnitsBody};
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

    fn l() -> Limits {
        Limits::default()
    }

    #[test]
    fn names() {
        assert!(name("sku", "HOT-1.a_b:c", &l()).is_ok());
        assert_eq!(name("sku", "", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(name("sku", "a b", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(name("sku", "é", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(
            name("sku", &"a".repeat(129), &l()).unwrap_err().code(),
            "limit_exceeded"
        );
        assert!(name("sku", &"a".repeat(128), &l()).is_ok());
    }

    #[test]
    fn allocation_rules() {
        let line = |s: &str, q| crate::kit::OrderLineBody::from(LineBody::new(s, q));
        let body = |lines| AllocationBody {
            lines,
            strategy: None,
            placement: None,
            allow_split: None,
        };
        let ok = allocation(
            "x".into(),
            body(vec![line("B", 1), line("A", 2)]),
            Strategy::Atomic,
            &l(),
        )
        .unwrap();
        assert_eq!(ok.lines[0].sku, "A");
        let err = |b| allocation("x".into(), b, Strategy::Atomic, &l()).unwrap_err().code();
        assert_eq!(err(body(vec![])), "invalid_request");
        assert_eq!(err(body(vec![line("A", 0)])), "invalid_request");
        assert_eq!(err(body(vec![line("A", -1)])), "invalid_request");
        assert_eq!(err(body(vec![line("A", 1), line("A", 1)])), "duplicate_sku");
        assert_eq!(err(body(vec![line("A", 2_000_000_000_000)])), "limit_exceeded");
        assert_eq!(
            err(body((0..101).map(|i| line(&format!("S{i}"), 1)).collect())),
            "limit_exceeded"
        );
        // A request line cannot say what only the server says of a line.
        for field in ["from", "returned"] {
            let v = serde_json::json!({"sku": "A", "quantity": 1, field: -5});
            assert!(serde_json::from_value::<LineBody>(v).is_err(), "{field} was accepted");
        }
        let placed = |p: serde_json::Value| {
            let mut b = body(vec![line("A", 1)]);
            b.placement = Some(serde_json::from_value(p).unwrap());
            allocation("x".into(), b, Strategy::Atomic, &l())
        };
        assert_eq!(
            placed(serde_json::json!("most_available")).unwrap().placement,
            Placement::MostAvailable
        );
        assert_eq!(
            placed(serde_json::json!(["W", "E"])).unwrap().placement,
            Placement::Ranked(vec!["W".into(), "E".into()])
        );
        assert!(placed(serde_json::json!("most_available")).unwrap().placed_by_policy());
        assert!(!placed(serde_json::json!(["W", "E"])).unwrap().placed_by_policy());
        let pinned: LineBody =
            serde_json::from_value(serde_json::json!({"sku": "A", "quantity": 1, "location": "W"})).unwrap();
        let pinned = allocation("x".into(), body(vec![pinned.into()]), Strategy::Atomic, &l()).unwrap();
        assert!(!pinned.placed_by_policy(), "a line pinned to a location");
        assert_eq!(placed(serde_json::json!([])).unwrap_err().code(), "invalid_request");
        assert_eq!(
            placed(serde_json::json!(["W", "W"])).unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(placed(serde_json::json!(["W/"])).unwrap_err().code(), "invalid_request");
        let many: Vec<String> = (0..65).map(|i| format!("L{i}")).collect();
        assert_eq!(placed(serde_json::json!(many)).unwrap_err().code(), "limit_exceeded");
        assert!(serde_json::from_value::<PlacementBody>(serde_json::json!("nearest")).is_err());
    }

    #[test]
    fn locations_transfers_and_levels() {
        let loc = |name: &str, priority| {
            location(
                LocationBody {
                    location: name.into(),
                    priority,
                },
                &l(),
            )
        };
        assert_eq!(loc("WH-1", None).unwrap().priority, 0);
        assert_eq!(loc("WH 1", None).unwrap_err().code(), "invalid_request");
        assert_eq!(loc("WH", Some(1_000_001)).unwrap_err().code(), "invalid_request");
        let t = |from: &str, to: &str, quantity| {
            transfer(
                "t".into(),
                TransferBody {
                    sku: "A".into(),
                    from: from.into(),
                    to: to.into(),
                    quantity,
                    reference: None,
                },
                &l(),
            )
        };
        assert!(t("E", "W", 1).is_ok());
        assert_eq!(t("E", "E", 1).unwrap_err().code(), "same_location");
        assert_eq!(t("E", "W", 0).unwrap_err().code(), "invalid_request");
        let s = |on_hand, compare_on_hand| {
            set_level(
                "A",
                "E",
                SetLevelBody {
                    on_hand,
                    compare_on_hand,
                    reason: None,
                    reference: None,
                },
                &l(),
            )
        };
        assert!(s(0, 5).is_ok());
        assert_eq!(s(-1, 5).unwrap_err().code(), "invalid_request");
        assert_eq!(s(1, -5).unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn create_and_adjust() {
        let c = |on_hand, buckets| {
            create_sku(
                CreateSkuBody {
                    sku: "A".into(),
                    on_hand,
                    buckets,
                    location: None,
                    low_stock_below: None,
                },
                &l(),
            )
        };
        assert!(c(0, None).is_ok());
        assert_eq!(c(-1, None).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(0)).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(65)).unwrap_err().code(), "limit_exceeded");
        let a = |delta| {
            adjustment(
                "A",
                AdjustmentBody {
                    delta,
                    reason: None,
                    reference: None,
                    location: None,
                },
                &l(),
            )
        };
        assert_eq!(a(0).unwrap_err().code(), "invalid_request");
        assert!(a(-5).is_ok());
        assert_eq!(a(i64::MIN).unwrap_err().code(), "limit_exceeded");
    }

    #[test]
    fn holds_and_units() {
        let lines = vec![crate::hold::HoldLineBody::stock("A", 1)];
        let h = |ttl_ms| {
            hold(
                "h".into(),
                HoldBody {
                    lines: lines.clone(),
                    ttl_ms,
                    strategy: None,
                    placement: None,
                    allow_split: None,
                },
                Strategy::Atomic,
                &l(),
            )
        };
        assert_eq!(h(1000).unwrap().ttl_ms, 1000);
        assert_eq!(h(999).unwrap_err().code(), "invalid_request");
        assert_eq!(h(86_400_001).unwrap_err().code(), "limit_exceeded");

        let claim = |quantity, order_by: &[&str]| {
            unit_claim(
                "u".into(),
                UnitAllocationBody {
                    sku: "A".into(),
                    quantity,
                    order_by: order_by.iter().map(|s| s.to_string()).collect(),
                    allow_partial: false,
                    strategy: None,
                    hold_ttl_ms: None,
                },
                UnitStrategy::SkipLocked,
                &l(),
            )
        };
        let ok = claim(3, &["received_at", "-location"]).unwrap();
        assert_eq!(ok.order_by[1].column, UnitColumn::Location);
        assert!(ok.order_by[1].descending);
        assert_eq!(claim(0, &[]).unwrap_err().code(), "invalid_request");
        assert_eq!(claim(1001, &[]).unwrap_err().code(), "limit_exceeded");
        assert_eq!(
            claim(1, &["id; DROP TABLE units"]).unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(claim(1, &["lot", "-lot"]).unwrap_err().code(), "duplicate_order_by");
        assert_eq!(
            claim(1, &["id", "lot", "serial", "location", "received_at"])
                .unwrap_err()
                .code(),
            "limit_exceeded"
        );

        let now = crate::support::input::instant("now", chrono::Utc::now()).unwrap();
        let unit = |serial: &str| NewUnit {
            serial: serial.into(),
            location: None,
            lot: None,
            received_at: None,
            expires_at: None,
        };
        let add = |units| add_units("A", UnitsBody { units }, now, &l());
        assert_eq!(add(vec![unit("1"), unit("2")]).unwrap().units[0].received_at, Some(now));
        assert_eq!(add(vec![unit("1"), unit("1")]).unwrap_err().code(), "duplicate_serial");
        assert_eq!(add(vec![]).unwrap_err().code(), "invalid_request");
        assert_eq!(add(vec![unit("")]).unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn bookings() {
        let b = |start: &str, end: &str| {
            booking(
                "b".into(),
                "room-1",
                BookingBody {
                    start: start.into(),
                    end: end.into(),
                    holder: "u".into(),
                    metadata: None,
                    strategy: None,
                    hold_ttl_ms: None,
                    quantity: None,
                },
                BookingStrategy::Exclusion,
                &l(),
            )
        };
        let ok = b("2026-03-01T10:00:00+02:00", "2026-03-01T09:00:00Z").unwrap();
        assert_eq!(ok.start.to_rfc3339(), "2026-03-01T08:00:00+00:00");
        assert_eq!(
            b("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z").unwrap_err().code(),
            "empty_range"
        );
        assert_eq!(
            b("2026-03-01T10:00:00", "2026-03-02T10:00:00Z").unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(
            b("2026-01-01T00:00:00Z", "2027-06-01T00:00:00Z").unwrap_err().code(),
            "limit_exceeded"
        );
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_size(1, &l()).unwrap(), 1);
        assert_eq!(page_size(1000, &l()).unwrap(), 1000);
        assert_eq!(page_size(0, &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(page_size(1001, &l()).unwrap_err().code(), "limit_exceeded");
    }

    #[test]
    fn idempotency_keys() {
        assert!(idempotency_key("abc-123", &l()).is_ok());
        assert!(idempotency_key("", &l()).is_err());
        assert!(idempotency_key("a\u{7f}", &l()).is_err());
        assert!(idempotency_key(&"k".repeat(256), &l()).is_err());
    }

    proptest! {
        #[test]
        fn valid_names_pass_and_others_fail(s in "[A-Za-z0-9._:-]{1,128}", bad in "[^A-Za-z0-9._:-]") {
            prop_assert!(name("sku", &s, &l()).is_ok());
            let with_bad = format!("{s}{bad}");
            prop_assert!(name("sku", &with_bad, &l()).is_err());
        }

        #[test]
        fn validated_lines_are_sorted_and_unique(skus in proptest::collection::hash_set("[A-Z]{1,4}", 1..20)) {
            let lines = skus.iter().map(|s| LineBody::new(s.clone(), 1).into()).collect();
            let req = allocation("id".into(), AllocationBody { lines, strategy: None, placement: None, allow_split: None }, Strategy::Atomic, &l()).unwrap();
            prop_assert!(req.lines.windows(2).all(|w| w[0].sku < w[1].sku));
            prop_assert_eq!(req.lines.len(), skus.len());
        }

        /// Arbitrary JSON through every body type and, where it reads, through its validator:
        /// never a panic, whatever the numbers (i64 extremes), strings (control characters,
        /// NUL, non-ASCII) and shapes.
        #[test]
        fn every_validator_takes_any_json(v in arb_body()) {
            let now = chrono::Utc::now();
            let limits = l();
            let (id, name) = ("id".to_string(), "Q");
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = create_sku(b, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = adjustment(name, b, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = allocation(id.clone(), b, Strategy::Atomic, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = hold(id.clone(), b, Strategy::Atomic, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = add_units(name, b, now, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = unit_claim(id.clone(), b, UnitStrategy::SkipLocked, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = booking(id.clone(), name, b, BookingStrategy::Exclusion, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = enqueue(name, b, now, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = claim(name, b, ClaimStrategy::SkipLocked, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = fail(b, &limits); }
            if let Ok(b) = serde_json::from_value(v) { let _ = completions(name, b, &limits); }
        }
    }

    /// Bodies shaped like the API's (the field names it reads, values of any kind), so that
    /// generated cases reach the validators rather than stop at the types.
    fn arb_body() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::{any, prop_oneof, Just};
        use proptest::strategy::Strategy as _;
        use serde_json::Value;
        let scalar = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1), Just(1)].prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::String),
            "[\\x00-\\x1f]{0,3}".prop_map(Value::String),
            prop_oneof![
                Just("2026-03-01T10:00:00Z"),
                Just("0001-01-01T00:00:00Z"),
                Just("2016-12-31T23:59:60Z"),
                Just("9999-12-31T23:59:59.999999999Z"),
                Just("2026-03-01T10:00:00.123456789+14:00")
            ]
            .prop_map(|s| Value::String(s.into())),
        ];
        let keys = prop_oneof![
            Just("sku"),
            Just("on_hand"),
            Just("buckets"),
            Just("delta"),
            Just("reason"),
            Just("lines"),
            Just("quantity"),
            Just("strategy"),
            Just("ttl_ms"),
            Just("units"),
            Just("serial"),
            Just("location"),
            Just("lot"),
            Just("received_at"),
            Just("expires_at"),
            Just("order_by"),
            Just("allow_partial"),
            Just("hold_ttl_ms"),
            Just("start"),
            Just("end"),
            Just("holder"),
            Just("metadata"),
            Just("jobs"),
            Just("payload"),
            Just("priority"),
            Just("run_at"),
            Just("max_attempts"),
            Just("unique_key"),
            Just("max"),
            Just("lease_ms"),
            Just("worker"),
            Just("wait_ms"),
            Just("lease_token"),
            Just("error"),
            Just("retry_in_ms"),
            Just("id")
        ];
        scalar.prop_recursive(3, 24, 4, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(keys.clone().prop_map(String::from), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
