//! TLS to PostgreSQL: a cluster of the test's own on a free port, speaking TLS with a
//! certificate the test makes (its own CA, a server certificate for `localhost`) and refusing
//! plain TCP, reached under every `sslmode`. Never the shared server on 5432.

use allot_bench::PgCluster;
use allot_conformance::fixture::{Fixture, T};
use allot_postgres::PgTarget;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A CA, and a server certificate for `localhost` signed by it, as PEM files in `dir`;
/// also a second CA that signed nothing. Returns (server cert, server key, CA path, other CA path).
fn certificates(dir: &Path) -> (String, String, PathBuf, PathBuf) {
    let ca = Authority::new("allot test CA");
    let other = Authority::new("another CA");
    let server_key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    let server = params.signed_by(&server_key, &ca.issuer()).unwrap();
    let (ca_path, other_path) = (dir.join("ca.pem"), dir.join("other-ca.pem"));
    std::fs::write(&ca_path, ca.cert.pem()).unwrap();
    std::fs::write(&other_path, other.cert.pem()).unwrap();
    (server.pem(), server_key.serialize_pem(), ca_path, other_path)
}

struct Authority {
    params: rcgen::CertificateParams,
    key: rcgen::KeyPair,
    cert: rcgen::Certificate,
}

impl Authority {
    fn new(name: &str) -> Authority {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.distinguished_name.push(rcgen::DnType::CommonName, name);
        let cert = params.self_signed(&key).unwrap();
        Authority { params, key, cert }
    }

    fn issuer(&self) -> rcgen::Issuer<'_, &rcgen::KeyPair> {
        rcgen::Issuer::from_params(&self.params, &self.key)
    }
}

/// Whether the connection made with `url` runs over TLS (`pg_stat_ssl`), or its error text.
async fn connects_over_tls(url: &str) -> Result<bool, String> {
    let target = PgTarget::parse(url).map_err(|e| e.to_string())?;
    let (client, conn) = target.connect().await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let row = client
        .query_one("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[])
        .await
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sslmode_against_a_server_of_our_own() {
    let dir = std::env::temp_dir().join(format!("allot-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key, ca, other_ca) = certificates(&dir);
    let cluster = PgCluster::start_tls(&cert, &key).unwrap();
    let port = cluster.port;
    let (ca, other_ca) = (ca.display(), other_ca.display());
    let at = |host: &str, query: &str| format!("postgres://postgres@{host}:{port}/postgres?{query}");

    // The name in the certificate is `localhost`; the chain is the test CA's.
    let cases: Vec<(String, Result<(), &str>)> = vec![
        (
            at("localhost", &format!("sslmode=verify-full&sslrootcert={ca}")),
            Ok(()),
        ),
        (at("127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={ca}")), Ok(())),
        (at("127.0.0.1", "sslmode=require"), Ok(())),
        (at("127.0.0.1", "sslmode=prefer"), Ok(())),
        (at("127.0.0.1", "application_name=allot"), Ok(())),
        (
            at("127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}")),
            Err("TLS with PostgreSQL at 127.0.0.1"),
        ),
        (
            at("localhost", &format!("sslmode=verify-ca&sslrootcert={other_ca}")),
            Err("TLS with PostgreSQL at localhost"),
        ),
        (
            at("localhost", &format!("sslmode=require&sslrootcert={other_ca}")),
            Err("TLS with PostgreSQL at localhost"),
        ),
        (
            at("127.0.0.1", "sslmode=disable"),
            Err("authentication failed for role \"postgres\""),
        ),
        (
            at("127.0.0.1", "sslmode=verify-all"),
            Err("sslmode `verify-all` is not one of"),
        ),
        (
            at("127.0.0.1", "sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem"),
            Err("sslrootcert: /nonexistent/ca.pem"),
        ),
    ];
    for (url, expected) in cases {
        match (connects_over_tls(&url).await, expected) {
            (Ok(tls), Ok(())) => assert!(tls, "{url}: connected without TLS"),
            (Err(e), Err(part)) => assert!(e.contains(part), "{url}: `{e}` does not say `{part}`"),
            (got, want) => panic!("{url}: got {got:?}, expected {want:?}"),
        }
    }

    // The whole store over verify-full: its pool, its migrations and its LISTEN connection.
    let url = at("localhost", &format!("sslmode=verify-full&sslrootcert={ca}"));
    a_store_works_over(&url, port).await;
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}

async fn a_store_works_over(url: &str, port: u16) {
    let opts = allot_store::OpenOptions {
        limits: Fixture::limits(),
        ..Default::default()
    };
    let store = allot_store::open(url, &opts).await.unwrap();
    let reopen_url = url.to_string();
    let reopen_opts = opts.clone();
    let f = Fixture::new(
        store,
        (std::sync::Arc::new(allot_core::TestClock::new()), opts.limits.clone()),
        Box::new(move || {
            let (u, o) = (reopen_url.clone(), reopen_opts.clone());
            Box::pin(async move { allot_store::open(&u, &o).await.unwrap() })
        }),
        Box::pin(async {}),
    );
    f.create_sku("TLS-1", 5).await;
    let allocation = f.allocate("TLS-1", 2).await;
    assert_eq!(allocation.lines[0].quantity, 2);
    // A wait for jobs starts the store's LISTEN connection; it must be one of TLS.
    let waiter = f.store.clone();
    tokio::spawn(async move { waiter.wait_for_jobs(&T, "q", Duration::from_secs(30)).await });
    let admin = format!("postgres://postgres@127.0.0.1:{port}/postgres?sslmode=require");
    let target = PgTarget::parse(&admin).unwrap();
    let (client, conn) = target.connect().await.unwrap();
    tokio::spawn(conn);
    let listening = "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
                     WHERE a.query = 'LISTEN allot_jobs' AND s.ssl";
    let mut found = 0i64;
    for _ in 0..200 {
        found = client.query_one(listening, &[]).await.unwrap().get(0);
        if found > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(found, 1, "the LISTEN connection runs over TLS");
    let plain: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
             WHERE a.client_addr IS NOT NULL AND NOT s.ssl",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(plain, 0, "no connection without TLS");
    f.finish().await;
}
