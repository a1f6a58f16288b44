use super::*;
use crate::booking::capacity::{self, PoolBody, ResourceBody};
use crate::booking::rules::RulesBody;
use crate::support::limits::Limits;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn night(d: u32) -> DateTime<Utc> {
    at(&format!("2026-03-{d:02}T00:00:00Z"))
}

fn hotel(capacity: u32, pools: &[&str], rules: RulesBody) -> Resource {
    let body = ResourceBody {
        capacity: Some(capacity),
        slot_ms: Some(86_400_000),
        pools: Some(pools.iter().map(|p| p.to_string()).collect()),
        rules: Some(rules),
        ..Default::default()
    };
    capacity::resource("double", body, night(1), &Limits::default()).unwrap()
}

fn booked(id: &str, resource: &str, from: u32, to: u32, quantity: i64) -> Counted {
    Counted {
        id: id.into(),
        resource: resource.into(),
        start: night(from),
        end: night(to),
        quantity,
        held: false,
    }
}

fn ask(from: u32, to: u32, quantity: u32) -> Ask<'static> {
    Ask {
        start: night(from),
        end: night(to),
        quantity,
        ignore: None,
        now: night(1),
    }
}

#[test]
fn every_full_night_is_a_reason_and_a_pool_counts_its_members() {
    let pool = capacity::pool(
        "hall",
        PoolBody {
            capacity: 4,
            slot_ms: 86_400_000,
            time_zone: None,
        },
        night(1),
        &Limits::default(),
    )
    .unwrap();
    let p = Picture {
        resource: hotel(3, &["hall"], RulesBody::default()),
        pools: vec![PoolPicture {
            pool,
            members: vec!["double".into(), "single".into()],
        }],
        overrides: vec![(night(5), 0)],
        bookings: vec![
            booked("a", "double", 3, 5, 2),
            booked("b", "single", 4, 5, 2),
            booked("c", "other", 3, 9, 9),
        ],
    };
    // Nights 3 and 4 have 1 free of the resource; night 4 has 0 in the pool; night 5 is a stop-sell.
    let r = judge(&p, &ask(3, 6, 2)).unwrap();
    let rules: Vec<(&str, DateTime<Utc>, Option<&str>)> = r
        .iter()
        .map(|x| match x {
            Reason::Capacity { slot_start, pool, .. } => ("capacity", *slot_start, pool.as_deref()),
            other => (other.rule(), night(1), None),
        })
        .collect();
    assert_eq!(
        rules,
        vec![
            ("capacity", night(3), None),
            ("capacity", night(4), None),
            ("capacity", night(5), None),
            ("capacity", night(4), Some("hall")),
        ]
    );
    assert!(judge(&p, &ask(3, 5, 1))
        .unwrap()
        .iter()
        .any(|r| matches!(r, Reason::Capacity { pool: Some(_), .. })));
    assert!(judge(&p, &ask(6, 8, 3)).unwrap().is_empty());
    // A reschedule does not count itself.
    let own = Ask {
        ignore: Some("a"),
        ..ask(3, 5, 2)
    };
    assert!(judge(&p, &own)
        .unwrap()
        .iter()
        .all(|r| !matches!(r, Reason::Capacity { pool: None, .. })));
    let a = availability(&p, night(3), night(6)).unwrap();
    assert_eq!(
        a.iter().map(|s| (s.used, s.free)).collect::<Vec<_>>(),
        vec![(2, 1), (2, 0), (0, 0)]
    );
}

#[test]
fn explain_lists_every_rule_that_refuses() {
    let rules = RulesBody {
        min_slots: Some(3),
        closed_to_arrival: Some(vec!["sat".into()]),
        lead_time_ms: Some(86_400_000 * 10),
        closed: Some(vec![crate::booking::rules::ClosedBody {
            from: "2026-03-07T12:00:00Z".into(),
            to: "2026-03-07T13:00:00Z".into(),
        }]),
        ..Default::default()
    };
    let p = Picture {
        resource: hotel(1, &[], rules),
        pools: vec![],
        overrides: vec![],
        bookings: vec![booked("x", "double", 7, 8, 1)],
    };
    // 2026-03-07 is a Saturday.
    let r = judge(&p, &ask(7, 8, 1)).unwrap();
    let names: Vec<&str> = r.iter().map(Reason::rule).collect();
    assert_eq!(
        names,
        vec!["closed", "min_slots", "closed_to_arrival", "lead_time", "capacity"]
    );
    assert!(matches!(
        refusal(r),
        Err(AllotError::RuleViolated(b)) if b.rule() == "closed"
    ));
}

#[test]
fn a_buffer_keeps_bookings_apart_on_a_resource_without_slots() {
    let body = ResourceBody {
        rules: Some(RulesBody {
            buffer_ms: Some(3_600_000),
            ..Default::default()
        }),
        ..Default::default()
    };
    let r = capacity::resource("room", body, night(1), &Limits::default()).unwrap();
    let h = |x: u32| night(2) + Duration::hours(x as i64);
    let p = Picture {
        resource: r,
        pools: vec![],
        overrides: vec![],
        bookings: vec![Counted {
            id: "m".into(),
            resource: "room".into(),
            start: h(10),
            end: h(11),
            quantity: 1,
            held: true,
        }],
    };
    let at = |s: u32, e: u32| Ask {
        start: h(s),
        end: h(e),
        quantity: 1,
        ignore: None,
        now: night(1),
    };
    assert_eq!(judge(&p, &at(11, 12)).unwrap()[0].rule(), "buffer");
    assert!(judge(&p, &at(12, 13)).unwrap().is_empty());
    assert_eq!(judge(&p, &at(10, 12)).unwrap()[0].rule(), "overlap");
}
