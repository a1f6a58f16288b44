//! Traces over OTLP/HTTP, received by an OTLP receiver of the test's own (it decodes the
//! protobuf `ExportTraceServiceRequest`s the exporter posts): an allocation made through a
//! batch on PostgreSQL continues the client's `traceparent` and links to its batch, and a job
//! runs as a child of the span that enqueued it, its retry linked to it, its completion flush
//! linked from it. Its own process (one test): it installs the global subscriber.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{start_with, Kind};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt as _;

type Received = Arc<Mutex<Vec<Span>>>;

/// The `traceparent` headers of the webhook deliveries the receiver got at `/hook`.
static HOOK_TRACEPARENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// An OTLP/HTTP receiver on a free loopback port, on a runtime of its own: every span posted
/// to `/v1/traces` lands in the returned list; it also takes webhook deliveries at `/hook`.
fn receiver() -> (String, Received) {
    let spans: Received = Arc::default();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let sink = spans.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let hook = axum::routing::post(|headers: axum::http::HeaderMap| async move {
                let traceparent = headers
                    .get("traceparent")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none");
                HOOK_TRACEPARENTS.lock().unwrap().push(traceparent.to_string());
                axum::http::StatusCode::NO_CONTENT
            });
            let app = axum::Router::new().route("/hook", hook).route(
                "/v1/traces",
                axum::routing::post(move |body: axum::body::Bytes| {
                    let sink = sink.clone();
                    async move {
                        let request = ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf body");
                        let mut spans = sink.lock().unwrap();
                        for resource in request.resource_spans {
                            for scope in resource.scope_spans {
                                spans.extend(scope.spans);
                            }
                        }
                        ([("content-type", "application/x-protobuf")], Vec::<u8>::new())
                    }
                }),
            );
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    (url, spans)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attr(span: &Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|a| a.key == key).and_then(|a| {
        a.value.as_ref().and_then(|v| v.value.as_ref()).map(|v| {
            use opentelemetry_proto::tonic::common::v1::any_value::Value;
            match v {
                Value::StringValue(s) => s.clone(),
                Value::IntValue(i) => i.to_string(),
                other => format!("{other:?}"),
            }
        })
    })
}

/// The spans as a readable list (for the closing note): name, trace, span, parent, links.
fn render(spans: &[Span]) -> String {
    spans
        .iter()
        .map(|s| {
            let links: Vec<String> = s.links.iter().map(|l| hex(&l.span_id)).collect();
            format!(
                "{:<24} trace {} span {} parent {:<16} links {:?}",
                s.name,
                hex(&s.trace_id),
                hex(&s.span_id),
                hex(&s.parent_span_id),
                links
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails the first attempt of every job, then succeeds.
struct FailOnce;

#[async_trait::async_trait]
impl allot_worker::Handler for FailOnce {
    async fn run(&self, job: &allot_core::job::LeasedJob) -> Result<(), allot_worker::JobError> {
        if job.attempt == 1 {
            return Err(allot_worker::JobError {
                error: "first attempt fails".into(),
                retry_in_ms: Some(0),
            });
        }
        Ok(())
    }
}

const CLIENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";
const JOB_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const JOB_CLIENT_SPAN: &str = "b7ad6b7169203331";

#[test]
fn an_allocation_through_a_batch_and_a_job_from_enqueue_to_completion() {
    let (url, received) = receiver();
    std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", &url);
    std::env::set_var("OTEL_BSP_SCHEDULE_DELAY", "50");
    let (layer, traces) = allot_server::telemetry::otlp_layer().unwrap().expect("configured");
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(drive(&url));
    rt.shutdown_timeout(Duration::from_secs(5));
    traces.shutdown();
    let spans = received.lock().unwrap().clone();
    eprintln!("{}", render(&spans));
    check_allocation(&spans);
    check_job(&spans);
    check_webhook(&spans);
}

/// Every delivery carried the `traceparent` of its own exported `webhook.deliver` span.
fn check_webhook(spans: &[Span]) {
    let sent = HOOK_TRACEPARENTS.lock().unwrap().clone();
    assert!(!sent.is_empty(), "no delivery arrived");
    let deliveries = named(spans, "webhook.deliver");
    for traceparent in sent {
        let parts: Vec<&str> = traceparent.split('-').collect();
        assert_eq!(parts.len(), 4, "a W3C traceparent: {traceparent}");
        assert!(
            deliveries
                .iter()
                .any(|d| hex(&d.trace_id) == parts[1] && hex(&d.span_id) == parts[2]),
            "{traceparent} is no webhook.deliver span:\n{}",
            render(spans)
        );
    }
}

/// An allocation with the client's traceparent (PostgreSQL's default strategy, `batched`);
/// a job enqueued with another, run by a worker pool whose handler fails its first attempt.
async fn drive(receiver: &str) {
    let ts = start_with(Kind::Postgres, |c| {
        c.webhook_allow_private = true;
        c.webhook_dispatch_interval_ms = 20;
    })
    .await;
    let (s, _) = ts
        .post(
            "/v1/webhooks",
            json!({"url": format!("{receiver}/hook"), "types": ["*"]}),
        )
        .await;
    assert_eq!(s, 201);
    let (s, _) = ts.post("/v1/skus", json!({"sku": "TRACED", "on_hand": 10})).await;
    assert_eq!(s, 201);
    let resp = ts
        .api
        .client
        .post(format!("{}/v1/allocations", ts.api.url))
        .header("traceparent", format!("00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"))
        .json(&json!({"lines": [{"sku": "TRACED", "quantity": 1}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let resp = ts
        .api
        .client
        .post(format!("{}/v1/queues/traced/jobs", ts.api.url))
        .header("traceparent", format!("00-{JOB_TRACE}-{JOB_CLIENT_SPAN}-01"))
        .json(&json!({"jobs": [{"payload": {"n": 1}}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 201);
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let mut cfg = allot_worker::WorkerConfig::new("traced", allot_core::job::ClaimStrategy::SkipLocked);
    cfg.poll_ms = 20;
    let pool = allot_worker::WorkerPool::start(store, cfg, Arc::new(FailOnce));
    for _ in 0..500 {
        if pool.stats.completed.load(std::sync::atomic::Ordering::Relaxed) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(pool.stats.completed.load(std::sync::atomic::Ordering::Relaxed), 1);
    pool.shutdown().await;
    for _ in 0..500 {
        if !HOOK_TRACEPARENTS.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn check_allocation(spans: &[Span]) {
    let request = named(spans, "POST /v1/allocations");
    assert_eq!(request.len(), 1, "one request span:\n{}", render(spans));
    let request = request[0];
    assert_eq!(hex(&request.trace_id), CLIENT_TRACE, "the client's trace is continued");
    assert_eq!(
        hex(&request.parent_span_id),
        CLIENT_SPAN,
        "a child of the client's span"
    );
    assert_eq!(attr(request, "http.response.status_code").as_deref(), Some("201"));
    let store = named(spans, "store.allocate");
    let store = store
        .iter()
        .find(|s| s.parent_span_id == request.span_id)
        .expect("the store call's span");
    let batches: Vec<&Span> = named(spans, "allot.batch")
        .into_iter()
        .filter(|b| attr(b, "batch.kind").as_deref() == Some("stock"))
        .collect();
    assert!(
        store.links.iter().any(|l| batches
            .iter()
            .any(|b| b.span_id == l.span_id && b.trace_id == l.trace_id)),
        "the store call links to its batch:\n{}",
        render(spans)
    );
}

fn check_job(spans: &[Span]) {
    let request = named(spans, "POST /v1/queues/{queue}/jobs");
    assert_eq!(request.len(), 1, "{}", render(spans));
    assert_eq!(hex(&request[0].trace_id), JOB_TRACE);
    let enqueue = named(spans, "store.enqueue");
    let enqueue = enqueue
        .iter()
        .find(|s| s.parent_span_id == request[0].span_id)
        .expect("store.enqueue");
    // Only the traced queue's runs: the server's webhook deliveries run as jobs too.
    let runs: Vec<&Span> = named(spans, "job.run")
        .into_iter()
        .filter(|s| attr(s, "job.queue").as_deref() == Some("traced"))
        .collect();
    let first = runs
        .iter()
        .find(|s| attr(s, "job.attempt").as_deref() == Some("1"))
        .expect("attempt 1");
    let second = runs
        .iter()
        .find(|s| attr(s, "job.attempt").as_deref() == Some("2"))
        .expect("attempt 2");
    assert_eq!(
        hex(&first.trace_id),
        JOB_TRACE,
        "the first attempt is in the enqueuing trace"
    );
    assert_eq!(first.parent_span_id, enqueue.span_id, "a child of the enqueue");
    assert_ne!(hex(&second.trace_id), JOB_TRACE, "a retry starts a trace of its own");
    assert!(
        second.links.iter().any(|l| l.span_id == enqueue.span_id),
        "linked to the enqueue"
    );
    let flushes = named(spans, "job.complete_batch");
    assert!(
        second
            .links
            .iter()
            .any(|l| flushes.iter().any(|f| f.span_id == l.span_id)),
        "the run links to the flush that completed it:\n{}",
        render(spans)
    );
}
