//! Webhook deliveries (Standard Webhooks): the dispatcher turns each tenant's new events into
//! delivery jobs on allot's own queue, and a worker pool on that queue posts them.
//!
//! - **Dispatcher.** Every `webhook_dispatch_interval_ms` it reads, per tenant with enabled
//!   endpoints, the events after the tenant's hand-over cursor (a page; again at once while a
//!   page comes back full, up to [`MAX_ROUNDS_PER_TICK`] rounds; one tenant's failure is logged
//!   and the others go on), enqueues one job
//!   per event and endpoint that wants it (tenant [`DELIVERY_TENANT`], queue
//!   [`DELIVERY_QUEUE`], [`DELIVERY_ATTEMPTS`] attempts) under the idempotency key
//!   `dispatch/{tenant}/{from}-{to}`, then moves the cursor from `from` to `to` only if it is
//!   still at `from`. Two instances reading the same page replay one enqueue, and each
//!   delivery's `unique_key` (`{endpoint}/{cursor}`) makes a second one of an event whose
//!   delivery is still unfinished the same job, so two dispatchers that read different pages
//!   queue it once. Only a dispatcher that dies between the enqueue and the move, and is
//!   followed by another after the first delivery finished, queues an event twice: deliveries
//!   are at least once, and `webhook-id` (the cursor) names a repeat.
//! - **Deliveries.** A `POST` of the event's JSON with `webhook-id`, `webhook-timestamp` and
//!   `webhook-signature`; 2xx completes the job; `410` disables the endpoint; anything else
//!   (3xx too: redirects are not followed), a timeout (`webhook_timeout_ms`) or no answer
//!   fails the attempt, retried on the spec's schedule with jitter, or after the receiver's
//!   `Retry-After` on 429/503 (seconds or an HTTP-date, at most 10 h); after the last attempt
//!   the job is a dead letter of the delivery queue. The answer's body is never read. Each
//!   attempt is recorded in the endpoint's health. Deliveries run concurrently: their order
//!   is not kept; each carries its cursor.
//! - **Server-side request forgery.** The endpoint's host is resolved by allot, and an
//!   address [`public`] does not allow (loopback, private, link-local, CGNAT, reserved,
//!   documentation, multicast, broadcast, and IPv6 forms that carry such an IPv4 address) is
//!   refused unless the operator set `--webhook-allow-private`; the connection goes to the
//!   checked address (no second lookup to rebind), and never through a proxy from the
//!   environment.

use allot_core::event::Event;
use allot_core::job::{Enqueue, JobSpec, LeasedJob};
use allot_core::store::{Idempotency, StoredResponse};
use allot_core::tenant::Tenant;
use allot_core::webhook::{outcome, retry_after_ms, retry_in_ms, signature, Attempt, Outcome, WebhookStatus};
use allot_core::webhook::{Delivery, Target, DELIVERY_ATTEMPTS, DELIVERY_QUEUE, DELIVERY_TENANT};
use allot_core::{Capable, Result, Stores};
use allot_worker::JobError;
use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// The tenant of the delivery queue.
pub(crate) fn delivery_tenant() -> Tenant {
    Tenant::stored(DELIVERY_TENANT)
}

/// Queue one delivery per (event, endpoint) pair, in batches of [`DISPATCH_BATCH`]; `key` (the
/// dispatcher's) makes the first batch's enqueue idempotent and each delivery unique while
/// unfinished; without one (a redelivery by hand) every pair is a new delivery. Returns how
/// many pairs were handed over.
pub(crate) async fn enqueue(stores: &Stores, pairs: &[(&Event, &Target)], key: Option<&str>) -> Result<u64> {
    let now = stores.now();
    let jobs: Vec<JobSpec> = pairs
        .iter()
        .map(|(e, t)| JobSpec {
            payload: serde_json::json!(Delivery {
                tenant: t.tenant.to_string(),
                webhook: t.id.clone(),
                cursor: e.cursor,
            }),
            priority: 1,
            run_at: now,
            max_attempts: DELIVERY_ATTEMPTS as i32,
            // The dispatcher's: one unfinished delivery per event and endpoint, whichever
            // dispatcher queued it. A redelivery by hand is always a new one.
            unique_key: key.map(|_| format!("{}/{}", t.id, e.cursor)),
            // Per endpoint: a limit on the deliveries queue can then bound each endpoint.
            partition_key: Some(t.id.clone()),
            tags: Vec::new(),
            metadata: serde_json::json!({}),
            depends_on: Vec::new(),
            on_failed_dependency: Default::default(),
        })
        .collect();
    let tenant = delivery_tenant();
    for (i, chunk) in jobs.chunks(DISPATCH_BATCH).enumerate() {
        let req = Enqueue {
            queue: DELIVERY_QUEUE.to_string(),
            jobs: chunk.to_vec(),
            now,
            traceparent: None,
            batch: None,
        };
        let idem = key.filter(|_| i == 0).map(|k| Idempotency {
            key: k.to_string(),
            fingerprint: k.to_string(),
            render: Box::new(|_: &allot_core::job::Enqueued| StoredResponse {
                code: 201,
                body: Vec::new(),
            }),
        });
        stores.jobs.enqueue(&tenant, req, idem).await?;
    }
    Ok(jobs.len() as u64)
}

/// Jobs per enqueue of the dispatcher (within `max_batch_insert`).
const DISPATCH_BATCH: usize = 1000;

/// The enabled endpoints of each tenant, each with the cursor it starts after, and the
/// tenant's hand-over cursor.
type Dispatch = BTreeMap<String, (Vec<(Target, i64)>, i64)>;

/// One round of the dispatcher: every tenant with enabled endpoints gets at most `page`
/// events handed over; a tenant's failure is logged and the others go on. Returns how many
/// deliveries were queued, and whether a tenant's page came back full (more are waiting).
pub(crate) async fn dispatch_once(stores: &Stores, page: u32) -> Result<(u64, bool)> {
    let mut by_tenant: Dispatch = BTreeMap::new();
    let enabled = stores.webhooks.webhook_dispatch().await?;
    metrics::gauge!("allot_webhook_endpoints_enabled").set(enabled.len() as f64);
    let failing = enabled.iter().filter(|(t, _, _)| t.failing).count();
    metrics::gauge!("allot_webhook_endpoints_failing").set(failing as f64);
    for (target, handed_over, after) in enabled {
        let entry = by_tenant
            .entry(target.tenant.to_string())
            .or_insert((Vec::new(), handed_over));
        entry.0.push((target, after));
    }
    let (mut queued, mut more) = (0, false);
    for (tenant, (targets, handed_over)) in by_tenant {
        let tenant = Tenant::stored(tenant);
        match hand_over(stores, &tenant, &targets, handed_over, page).await {
            Ok((n, full)) => {
                queued += n;
                more |= full;
            }
            Err(e) => tracing::warn!(error = %e, tenant = %tenant, "webhook dispatch failed for a tenant"),
        }
    }
    Ok((queued, more))
}

/// Hand `tenant`'s next page of events (after `handed_over`, or after its endpoints' starts)
/// to delivery jobs, then move its hand-over cursor. Returns how many were queued and
/// whether the page was full.
async fn hand_over(
    stores: &Stores,
    tenant: &Tenant,
    targets: &[(Target, i64)],
    handed_over: i64,
    page: u32,
) -> Result<(u64, bool)> {
    let first = targets.iter().map(|(_, after)| *after).min().unwrap_or(0);
    let from = handed_over.max(first);
    let query = allot_core::event::EventQuery {
        after: from,
        limit: page,
        types: Vec::new(),
        object: None,
        sku: None,
    };
    let page_read = stores.events.events(tenant, &query).await?;
    let (events, to) = (page_read.events, page_read.next);
    if to <= from {
        return Ok((0, false));
    }
    let pairs: Vec<(&Event, &Target)> = events
        .iter()
        .flat_map(|e| {
            targets
                .iter()
                .filter(move |(t, after)| e.cursor > *after && t.wants(e.kind))
                .map(move |(t, _)| (e, t))
        })
        .collect();
    let key = format!("dispatch/{tenant}/{from}-{to}");
    let queued = enqueue(stores, &pairs, Some(&key)).await?;
    stores
        .webhooks
        .advance_webhook_dispatch(tenant, handed_over, to)
        .await?;
    Ok((queued, events.len() >= page as usize))
}

/// Rounds one tick may run back to back while tenants have a backlog.
const MAX_ROUNDS_PER_TICK: usize = 100;

/// The dispatcher: a round every `interval_ms`, again at once while a round handed over a full
/// page (at most [`MAX_ROUNDS_PER_TICK`] in a row). Errors are logged and retried at the next
/// tick.
pub(crate) async fn dispatch(stores: Stores, interval_ms: u64, page: u32) {
    let mut tick = crate::sweepers::every(interval_ms);
    loop {
        tick.tick().await;
        for _ in 0..MAX_ROUNDS_PER_TICK {
            match dispatch_once(&stores, page).await {
                Ok((n, more)) => {
                    metrics::counter!("allot_webhook_deliveries_queued_total").increment(n);
                    if !more {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "webhook dispatch failed");
                    break;
                }
            }
        }
    }
}

/// The address a URL's host names literally (`None` for a domain name).
fn literal_ip<S: AsRef<str>>(host: &url::Host<S>) -> Option<IpAddr> {
    match host {
        url::Host::Ipv4(v4) => Some(IpAddr::V4(*v4)),
        url::Host::Ipv6(v6) => Some(IpAddr::V6(*v6)),
        url::Host::Domain(_) => None,
    }
}

/// How long a new endpoint's host name may take to resolve before it is accepted unchecked
/// (its deliveries check every address again).
const CREATION_RESOLVE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Why `url` may not be a new endpoint's on a server without `--webhook-allow-private` (then
/// `None`): its host is an address literal [`public`] refuses, `localhost`, or a name that
/// resolves within [`CREATION_RESOLVE_WAIT`] only to such addresses. A name that does not
/// resolve (yet) is accepted: each delivery looks it up again and refuses the same way.
pub(crate) async fn refused_endpoint(url: &str, allow_private: bool) -> Option<String> {
    if allow_private {
        return None;
    }
    let parsed = reqwest::Url::parse(url).ok()?;
    let refusal = |what: &str| {
        Some(format!(
            "url: {what}, which deliveries may not reach (server-side request forgery guard); \
             the operator allows loopback and private targets with --webhook-allow-private"
        ))
    };
    let host = parsed.host()?;
    if let Some(ip) = literal_ip(&host) {
        return (!public(ip)).then(|| refusal(&format!("{ip} is not a public address")))?;
    }
    let name = host.to_string().to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return refusal(&format!("{name} is loopback"));
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let found = tokio::time::timeout(CREATION_RESOLVE_WAIT, tokio::net::lookup_host((name.as_str(), port))).await;
    let addresses: Vec<SocketAddr> = match found {
        Ok(Ok(found)) => found.collect(),
        _ => return None,
    };
    if !addresses.is_empty() && addresses.iter().all(|a| !public(a.ip())) {
        return refusal(&format!("{name} resolves only to addresses that are not public"));
    }
    None
}

/// Whether an address may receive deliveries without `--webhook-allow-private`: not
/// loopback, private, link-local, shared (CGNAT), benchmarking, reserved, 6to4 relay,
/// unspecified, multicast, broadcast or documentation, in IPv4 or IPv6. An IPv6 address that
/// carries an IPv4 one (mapped, compatible, NAT64 `64:ff9b::/96` and local `64:ff9b:1::/48`,
/// 6to4 `2002::/16`) counts as that IPv4 address; IPv6 site-local (`fec0::/10`), Teredo
/// (`2001::/32`) and documentation (`2001:db8::/32`) are refused.
pub(crate) fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (18..20).contains(&b))
                || (a == 192 && b == 0 && c == 0)
                || (a == 192 && b == 88 && c == 99)
                || a >= 240
                || a == 0)
        }
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => public(IpAddr::V4(v4)),
            None => {
                let [first, second, ..] = v6.segments();
                !(v6.is_loopback()
                    || v6.is_unspecified()
                    || v6.is_multicast()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
                    || (first & 0xffc0) == 0xfec0
                    || (first == 0x2001 && second == 0x0db8)
                    || (first == 0x2001 && second == 0))
            }
        },
    }
}

/// The IPv4 address an IPv6 one carries, if it carries one: IPv4-mapped or -compatible
/// (`::ffff:a.b.c.d`, `::a.b.c.d`), NAT64 (`64:ff9b::/96`, RFC 6052; `64:ff9b:1::/48`, RFC
/// 8215: the last 32 bits, as the well-known prefix) or 6to4 (`2002::/16`, RFC 3056). `::` and `::1` are left to the IPv6 rules.
fn embedded_v4(v6: std::net::Ipv6Addr) -> Option<std::net::Ipv4Addr> {
    let s = v6.segments();
    let o = v6.octets();
    match s {
        _ if v6.is_loopback() || v6.is_unspecified() => None,
        [0, 0, 0, 0, 0, 0xffff | 0, _, _] => Some(std::net::Ipv4Addr::new(o[12], o[13], o[14], o[15])),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] | [0x64, 0xff9b, 1, ..] => {
            Some(std::net::Ipv4Addr::new(o[12], o[13], o[14], o[15]))
        }
        [0x2002, ..] => Some(std::net::Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => None,
    }
}

/// reqwest's resolver for deliveries: the system's lookup, then only the addresses
/// [`public`] allows (all of them with `allow_private`); none left is an error, so the
/// request never leaves.
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let host = format!("{}:0", name.as_str());
            let found: Vec<SocketAddr> = tokio::net::lookup_host(host).await?.collect();
            let allowed: Vec<SocketAddr> = found.into_iter().filter(|a| allow_private || public(a.ip())).collect();
            if allowed.is_empty() {
                let refused: Box<dyn std::error::Error + Send + Sync> =
                    format!("{} resolves only to addresses deliveries may not reach", name.as_str()).into();
                return Err(refused);
            }
            let addrs: reqwest::dns::Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

/// The delivery worker's job handler.
pub(crate) struct Deliverer {
    stores: Stores,
    client: reqwest::Client,
    allow_private: bool,
    /// The last failure logged per endpoint (tenant, id): a warning is logged when an
    /// endpoint starts failing for a reason, not on every delivery (at most
    /// [`MAX_WARNED_ENDPOINTS`] remembered).
    warned: std::sync::Mutex<std::collections::HashMap<(String, String), String>>,
}

/// Most endpoints whose last logged failure a deliverer remembers; past it, it starts again.
const MAX_WARNED_ENDPOINTS: usize = 4096;

impl Deliverer {
    /// A deliverer whose requests time out after `timeout_ms`, follow no redirect, and reach
    /// private addresses only with `allow_private`.
    pub(crate) fn new(stores: Stores, timeout_ms: u64, allow_private: bool) -> Result<Self> {
        let client = reqwest::Client::builder()
            // A proxy from the environment would be the only address the resolver checks.
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(std::time::Duration::from_millis(timeout_ms.max(1)))
            .dns_resolver(Arc::new(GuardedResolver { allow_private }))
            .user_agent("allot-webhooks")
            .build()
            .map_err(|e| allot_core::AllotError::Internal(format!("webhook client: {e}")))?;
        Ok(Deliverer {
            stores,
            client,
            allow_private,
            warned: Default::default(),
        })
    }

    /// Log at warn that `tenant`'s endpoint `id` failed for `why`, once per endpoint and
    /// reason (again after a delivery, or another reason, came between).
    fn warn_once(&self, tenant: &Tenant, id: &str, url: &str, why: Option<&str>) {
        let mut warned = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        let key = (tenant.to_string(), id.to_string());
        let Some(why) = why else {
            warned.remove(&key);
            return;
        };
        if warned.get(&key).is_some_and(|last| last == why) {
            return;
        }
        if warned.len() >= MAX_WARNED_ENDPOINTS {
            warned.clear();
        }
        tracing::warn!(tenant = %tenant, webhook = id, url, reason = why, "webhook deliveries to this endpoint fail");
        warned.insert(key, why.to_string());
    }
}

/// The failure of an attempt that ended with `error`: retried on the schedule (or after
/// `retry_after_ms`), or left to the queue's last attempt, which makes it a dead letter.
fn retry(attempt: i32, retry_after_ms: Option<u64>, error: String) -> std::result::Result<(), JobError> {
    metrics::counter!("allot_webhook_deliveries_total", "outcome" => "failed").increment(1);
    match retry_in_ms(attempt.max(1) as u32, rand::random::<f64>(), retry_after_ms) {
        Some(ms) => Err(JobError::retry_in(error, ms.min(i64::MAX as u64) as i64)),
        None => Err(JobError::from(error)),
    }
}

/// A delivery that ends without a request (`what`: the endpoint is gone or disabled, the
/// event was pruned).
fn skipped(what: &'static str) -> std::result::Result<(), JobError> {
    metrics::counter!("allot_webhook_deliveries_total", "outcome" => what).increment(1);
    Ok(())
}

impl Deliverer {
    /// The event of `tenant` at `cursor`, if it is still kept.
    async fn event(&self, tenant: &Tenant, cursor: i64) -> std::result::Result<Option<Event>, JobError> {
        let query = allot_core::event::EventQuery {
            after: cursor - 1,
            limit: 1,
            types: Vec::new(),
            object: None,
            sku: None,
        };
        let page = self
            .stores
            .events
            .events(tenant, &query)
            .await
            .map_err(|e| JobError::from(e.to_string()))?;
        Ok(page.events.into_iter().find(|e| e.cursor == cursor))
    }

    /// Whether `url` names an address literal deliveries may not reach (a name is checked
    /// by the resolver when it is looked up).
    fn refused_literal(&self, url: &str) -> bool {
        let ip = reqwest::Url::parse(url)
            .ok()
            .and_then(|u| u.host().and_then(|h| literal_ip(&h)));
        !self.allow_private && ip.is_some_and(|ip| !public(ip))
    }
}

#[async_trait::async_trait]
impl allot_worker::Handler for Deliverer {
    async fn run(&self, job: &LeasedJob) -> std::result::Result<(), JobError> {
        let d: Delivery =
            serde_json::from_value(job.payload.clone()).map_err(|e| JobError::from(format!("not a delivery: {e}")))?;
        let tenant = Tenant::stored(d.tenant);
        let target = self
            .stores
            .webhooks
            .webhook_target(&tenant, &d.webhook)
            .await
            .map_err(|e| JobError::from(e.to_string()))?;
        let Some(target) = target.filter(|t| t.status == WebhookStatus::Enabled) else {
            return skipped("endpoint_gone");
        };
        let Some(event) = self.event(&tenant, d.cursor).await? else {
            return skipped("event_pruned");
        };
        let (attempt, retry_after_ms, why) = self.post(&tenant, &target, &event).await?;
        let failed = matches!(attempt, Attempt::Failed(_)).then_some(why.as_str());
        self.warn_once(&tenant, &target.id, &target.url, failed);
        self.record(&tenant, &target.id, attempt, failed).await?;
        match attempt {
            Attempt::Delivered(_) => skipped("delivered"),
            Attempt::Gone => skipped("gone"),
            Attempt::Failed(_) => retry(job.attempt, retry_after_ms, why),
        }
    }
}

impl Deliverer {
    /// Post `event` to `target`: how it ended, the receiver's `Retry-After` (ms), and why it
    /// failed (for the job's error).
    async fn post(
        &self,
        tenant: &Tenant,
        target: &Target,
        event: &Event,
    ) -> std::result::Result<(Attempt, Option<u64>, String), JobError> {
        if self.refused_literal(&target.url) {
            let why = "the endpoint's address may not receive deliveries".to_string();
            return Ok((Attempt::Failed(None), None, why));
        }
        let body = serde_json::to_vec(event).map_err(|e| JobError::from(e.to_string()))?;
        let (id, timestamp) = (
            allot_core::webhook::message_id(tenant, event.cursor),
            self.stores.now().timestamp(),
        );
        let span = tracing::debug_span!("webhook", otel.name = "webhook.deliver", otel.kind = "client", webhook.id = %target.id);
        let mut request = self
            .client
            .post(&target.url)
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature(&target.keys, &id, timestamp, &body));
        // The receiver may continue the delivery's trace (W3C Trace Context).
        if let Some(traceparent) = crate::telemetry::traceparent_of(&span) {
            request = request.header("traceparent", traceparent);
        }
        let answer = tracing::Instrument::instrument(request.body(body).send(), span).await;
        let answer = match answer {
            Ok(a) => a,
            Err(e) => return Ok((Attempt::Failed(None), None, format!("no answer: {e}"))),
        };
        let status = answer.status().as_u16();
        let retry_after = answer
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| retry_after_ms(v, self.stores.now()));
        drop(answer); // the body is never read
        Ok(match outcome(status, retry_after) {
            Outcome::Delivered => (Attempt::Delivered(status), None, String::new()),
            Outcome::Gone => (Attempt::Gone, None, String::new()),
            Outcome::Retry { after_ms } => (Attempt::Failed(Some(status)), after_ms, format!("answered {status}")),
        })
    }

    /// Record `attempt` in the endpoint's health. A `410` must be recorded (it disables the
    /// endpoint: an error retries the job); otherwise a failure to record is logged, so a
    /// delivered event is not delivered again for it.
    async fn record(
        &self,
        tenant: &Tenant,
        id: &str,
        attempt: Attempt,
        error: Option<&str>,
    ) -> std::result::Result<(), JobError> {
        match self.stores.webhooks.record_attempt(tenant, id, attempt, error).await {
            Err(e) if attempt == Attempt::Gone => Err(JobError::from(e.to_string())),
            Err(e) => {
                tracing::warn!(error = %e, webhook = id, "could not record a delivery attempt");
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::public;

    #[test]
    fn only_public_addresses_receive_deliveries() {
        for ok in [
            "93.184.215.14",
            "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
            "64:ff9b::5db8:d70e",
            "2002:5db8:d70e::1",
        ] {
            assert!(public(ok.parse().unwrap()), "{ok}");
        }
        for refused in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "198.18.0.1",
            "192.0.0.8",
            "240.0.0.1",
            "255.255.255.255",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fe80::1",
            "fec0::1",
            "2001:db8::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
        ] {
            assert!(!public(refused.parse().unwrap()), "{refused}");
        }
    }
}
