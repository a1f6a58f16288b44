//! HTTPS with `--tls-cert`/`--tls-key`: a self-signed certificate made by Debian's openssl,
//! a real TLS client (curl, trusting only that certificate), HTTP/1.1 and HTTP/2 by ALPN;
//! plain HTTP on the TLS port gets no answer.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

use std::process::Command;

fn openssl_cert(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let ok = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "1",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (Debian's package)");
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    (cert, key)
}

fn curl(args: &[&str]) -> (bool, String) {
    let out = Command::new("curl").args(args).output().expect("curl");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_https_with_the_given_certificate() {
    let dir = std::env::temp_dir().join(format!("allot-tls-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = openssl_cert(&dir);
    let mut cfg = allot_server::ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", dir.join("tls.db").display()),
        ..Default::default()
    };
    cfg.http.tls = Some(allot_server::http::TlsFiles {
        cert: cert.clone(),
        key,
    });
    let server = allot_server::spawn(&cfg).await.expect("starts with TLS");
    assert!(server.url().starts_with("https://"));
    let url = format!("{}/healthz", server.url());
    let cacert = cert.display().to_string();
    let (u1, h2) = (url.clone(), url.clone());
    let c1 = cacert.clone();
    let (ok, body) = tokio::task::spawn_blocking(move || curl(&["-sS", "--http1.1", "--cacert", &c1, &u1]))
        .await
        .unwrap();
    assert!(ok && body.contains(r#""status":"ok""#), "HTTP/1.1 over TLS: {body}");
    let c2 = cacert.clone();
    let (ok, body) =
        tokio::task::spawn_blocking(move || curl(&["-sS", "--http2", "--cacert", &c2, "-w", " %{http_version}", &h2]))
            .await
            .unwrap();
    assert!(ok && body.ends_with(" 2"), "HTTP/2 by ALPN: {body}");
    let plain = url.replace("https://", "http://");
    let (ok, _) = tokio::task::spawn_blocking(move || curl(&["-sS", "-m", "3", &plain]))
        .await
        .unwrap();
    assert!(!ok, "plain HTTP on the TLS port must not be answered");
    server.stop().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
