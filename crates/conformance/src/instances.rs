//! The instances of `allot serve` on one database, by their heartbeats.

use crate::fixture::Fixture;

/// Instances by their heartbeats: listed once seen and by start, a heartbeat moves `seen_at`,
/// one not seen lately is not listed, and one gone past `forget_before` is deleted.
pub async fn instances_by_heartbeat(f: Fixture) {
    use allot_core::instance::Instance;
    let s = &f.store;
    let now = s.now();
    let at = |ms: i64| now - chrono::Duration::milliseconds(ms);
    let instance = |id: &str, started: i64, seen: i64| Instance {
        id: id.into(),
        version: "0.1.0".into(),
        started_at: at(started),
        seen_at: at(seen),
    };
    s.heartbeat(&instance("b", 5_000, 1_000), at(86_400_000)).await.unwrap();
    s.heartbeat(&instance("a", 9_000, 2_000), at(86_400_000)).await.unwrap();
    s.heartbeat(&instance("old", 99_000_000, 90_000_000), at(86_400_000))
        .await
        .unwrap();
    s.heartbeat(&instance("quiet", 60_000, 40_000), at(86_400_000))
        .await
        .unwrap();
    let live = |since: i64| async move {
        let listed = s.instances(at(since), 10).await.unwrap();
        listed.into_iter().map(|i| i.id).collect::<Vec<_>>()
    };
    assert_eq!(
        live(30_000).await,
        ["a", "b"],
        "by start; the quiet and the old are not live"
    );
    s.heartbeat(&instance("quiet", 60_000, 0), at(86_400_000))
        .await
        .unwrap();
    assert_eq!(live(30_000).await, ["quiet", "a", "b"], "a heartbeat moves seen_at");
    assert_eq!(
        live(100_000_000).await,
        ["quiet", "a", "b"],
        "the one gone a day is forgotten"
    );
    assert_eq!(s.instances(at(30_000), 1).await.unwrap().len(), 1, "at most max");
    f.finish().await;
}
