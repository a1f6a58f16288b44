//! TLS to PostgreSQL with rustls, chosen as libpq chooses it: by `sslmode` and `sslrootcert`
//! (PostgreSQL docs, "SSL Support", table "SSL Mode Descriptions").
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (default) | if the server offers it | not checked |
//! | `require` | always | not checked, unless `sslrootcert` is given (then as `verify-ca`) |
//! | `verify-ca` | always | signed by a trusted root |
//! | `verify-full` | always | signed by a trusted root and naming the host |
//!
//! Trusted roots are the PEM certificates of `sslrootcert=/path`, or the system's (read by
//! rustls-native-certs) for `verify-full` with `sslrootcert=system` or none. As libpq,
//! `verify-ca` needs a root file (the system's roots and no name check would accept any
//! publicly issued certificate) and `sslrootcert=system` allows only `verify-full`.

use allot_core::AllotError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::Arc;

/// libpq's `sslmode` values (PostgreSQL docs, "SSL Support").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Plain TCP only.
    Disable,
    /// TLS when the server offers it, the certificate unchecked (libpq's default).
    Prefer,
    /// TLS always; the certificate checked only when `sslrootcert` is given.
    Require,
    /// TLS always, the certificate chain checked against the trusted roots.
    VerifyCa,
    /// As `VerifyCa`, and the certificate must name the host connected to.
    VerifyFull,
}

impl SslMode {
    /// Parse libpq's spelling; `None` for anything else.
    pub fn parse(text: &str) -> Option<SslMode> {
        Some(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// libpq's spelling.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    /// What tokio-postgres is told: it knows only whether TLS is off, optional or required.
    pub(crate) fn negotiation(self) -> tokio_postgres::config::SslMode {
        match self {
            SslMode::Disable => tokio_postgres::config::SslMode::Disable,
            SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
            _ => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// Where trusted roots come from (`sslrootcert`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootCerts {
    /// The system's store (`sslrootcert=system`, or none given).
    System,
    /// A PEM file of one or more certificates.
    File(std::path::PathBuf),
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn bad_root(detail: String) -> AllotError {
    AllotError::invalid(format!("database url: sslrootcert: {detail}"))
}

fn load_roots(roots: &RootCerts) -> Result<RootCertStore, AllotError> {
    let mut store = RootCertStore::empty();
    match roots {
        RootCerts::File(path) => {
            let shown = path.display();
            for cert in CertificateDer::pem_file_iter(path).map_err(|e| bad_root(format!("{shown}: {e}")))? {
                let cert = cert.map_err(|e| bad_root(format!("{shown}: {e}")))?;
                store.add(cert).map_err(|e| bad_root(format!("{shown}: {e}")))?;
            }
        }
        RootCerts::System => {
            let found = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(found.certs);
        }
    }
    if store.is_empty() {
        return Err(bad_root(match roots {
            RootCerts::File(p) => format!("{} holds no certificate", p.display()),
            RootCerts::System => "the system has no trusted root certificates".into(),
        }));
    }
    Ok(store)
}

/// The rustls client configuration for `mode` with `roots` (`None`: no `sslrootcert`).
///
/// Errors: `invalid_request` when the root certificates cannot be read.
pub fn client_config(mode: SslMode, roots: Option<&RootCerts>) -> Result<rustls::ClientConfig, AllotError> {
    let provider = provider();
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| AllotError::Internal(format!("tls: {e}")))?;
    let check = match (mode, roots) {
        (SslMode::Disable | SslMode::Prefer, _) | (SslMode::Require, None) => None,
        (SslMode::Require | SslMode::VerifyCa, Some(r)) => Some((false, r.clone())),
        (SslMode::VerifyCa, None) => {
            return Err(AllotError::invalid("database url: sslmode=verify-ca needs sslrootcert"));
        }
        (SslMode::VerifyFull, r) => Some((true, r.cloned().unwrap_or(RootCerts::System))),
    };
    let verifier: Arc<dyn ServerCertVerifier> = match check {
        None => Arc::new(Unchecked(provider)),
        Some((full, roots)) => {
            let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(load_roots(&roots)?), provider)
                .build()
                .map_err(|e| bad_root(e.to_string()))?;
            if full {
                webpki
            } else {
                Arc::new(ChainOnly(webpki))
            }
        }
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

/// `prefer` and `require` without roots: the certificate is not checked (as libpq), but the
/// handshake's signatures still are, so the server proves it holds the certificate's key.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is checked against the roots; the name in the certificate is not
/// (a certificate valid for another host is accepted).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
