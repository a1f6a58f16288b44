//! How allot reaches PostgreSQL: the database URL in either of libpq's forms (PostgreSQL
//! docs, "Connection Strings"), the TLS its `sslmode` and `sslrootcert` ask for
//! ([`super::tls`]), and connection errors that say what to do.
//!
//! tokio-postgres parses everything but `sslmode=verify-ca|verify-full` and `sslrootcert`;
//! those two are taken out of the URL here and given to rustls.

use super::tls::{client_config, RootCerts, SslMode};
use allot_core::AllotError;
use std::str::FromStr;
use tokio_postgres::error::SqlState;
use tokio_postgres_rustls::MakeRustlsConnect;

/// A connection's two halves; the second must be polled (spawned) for the first to work.
pub type PgConnection = tokio_postgres::Connection<
    tokio_postgres::Socket,
    <MakeRustlsConnect as tokio_postgres::tls::MakeTlsConnect<tokio_postgres::Socket>>::Stream,
>;

/// A parsed database URL: the settings tokio-postgres uses, and the TLS connector every
/// connection (pooled, migrations, `LISTEN`) is made with.
#[derive(Clone)]
pub struct PgTarget {
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
    mode: SslMode,
}

impl std::fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgTarget({}, sslmode {:?})", self.endpoint(), self.mode)
    }
}

/// `url` without its `sslmode` and `sslrootcert` settings, and their values. The URL form
/// carries them as query pairs (percent-decoded); the key/value form as `key=value` words (a
/// key/value string with quotes is left to tokio-postgres as it is: `None, None`).
fn split_tls_settings(url: &str) -> (String, Option<String>, Option<String>) {
    let (mut mode, mut root) = (None, None);
    let mut take = |key: &str, value: String| -> bool {
        match key {
            "sslmode" => mode = Some(value),
            "sslrootcert" => root = Some(value),
            _ => return false,
        }
        true
    };
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return (url.to_string(), None, None);
        };
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                !take(
                    k,
                    percent_encoding::percent_decode_str(v).decode_utf8_lossy().into_owned(),
                )
            })
            .collect();
        let rest = if kept.is_empty() {
            String::new()
        } else {
            format!("?{}", kept.join("&"))
        };
        return (format!("{base}{rest}"), mode, root);
    }
    if url.contains(['\'', '"']) {
        return (url.to_string(), None, None);
    }
    let kept: Vec<&str> = url
        .split_whitespace()
        .filter(|word| {
            let (k, v) = word.split_once('=').unwrap_or((word, ""));
            !take(k, v.to_string())
        })
        .collect();
    (kept.join(" "), mode, root)
}

/// The `sslmode` in force: the one given, else `verify-full` with `sslrootcert=system`, else
/// what tokio-postgres parsed (`prefer` by default), checked as libpq checks it.
fn ssl_mode_of(
    given: Option<&str>,
    roots: Option<&RootCerts>,
    parsed: tokio_postgres::config::SslMode,
) -> Result<SslMode, AllotError> {
    let mode = match (given, roots) {
        (Some(text), _) => SslMode::parse(text).ok_or_else(|| {
            AllotError::invalid(format!(
                "database url: sslmode `{text}` is not one of disable, prefer, require, verify-ca, verify-full"
            ))
        })?,
        (None, Some(RootCerts::System)) => SslMode::VerifyFull,
        (None, _) => match parsed {
            tokio_postgres::config::SslMode::Disable => SslMode::Disable,
            tokio_postgres::config::SslMode::Require => SslMode::Require,
            _ => SslMode::Prefer,
        },
    };
    if roots == Some(&RootCerts::System) && mode != SslMode::VerifyFull {
        return Err(AllotError::invalid(format!(
            "database url: sslrootcert=system needs sslmode=verify-full, not {} (as libpq: with the system's \
             roots, a weaker check would accept any publicly issued certificate)",
            mode.name()
        )));
    }
    if mode == SslMode::VerifyCa && roots.is_none() {
        return Err(AllotError::invalid(
            "database url: sslmode=verify-ca needs sslrootcert=/path/ca.pem (the system's roots would accept \
             any publicly issued certificate); for the system's roots use sslmode=verify-full",
        ));
    }
    Ok(mode)
}

impl PgTarget {
    /// Parse `url` (`postgres://user:password@host:port/db?sslmode=verify-full&sslrootcert=ca.pem`,
    /// or for library callers `host=… user=… sslmode=…`). `sslmode` defaults to `prefer`, as
    /// in libpq, and to `verify-full` with `sslrootcert=system`; `verify-ca` needs a root file
    /// of its own, and `sslrootcert=system` allows only `verify-full` (libpq's rules).
    ///
    /// Errors: `invalid_request` naming what is wrong (never echoing a password).
    pub fn parse(url: &str) -> Result<PgTarget, AllotError> {
        let (rest, mode, root) = split_tls_settings(url);
        let roots = root.map(|r| match r.as_str() {
            "system" => RootCerts::System,
            path => RootCerts::File(path.into()),
        });
        let mut config = tokio_postgres::Config::from_str(&rest)
            .map_err(|e| AllotError::invalid(format!("bad database url: {e}")))?;
        let mode = ssl_mode_of(mode.as_deref(), roots.as_ref(), config.get_ssl_mode())?;
        config.ssl_mode(mode.negotiation());
        let tls = MakeRustlsConnect::new(client_config(mode, roots.as_ref())?);
        Ok(PgTarget { config, tls, mode })
    }

    /// Bound connecting to `wait` unless the URL sets its own `connect_timeout`.
    pub(crate) fn bound_connect(&mut self, wait: std::time::Duration) {
        if self.config.get_connect_timeout().is_none() {
            self.config.connect_timeout(wait);
        }
    }

    /// The settings tokio-postgres connects with (`sslmode` already applied).
    pub fn config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    /// The TLS connector (cheap to clone).
    pub fn tls(&self) -> MakeRustlsConnect {
        self.tls.clone()
    }

    /// The `sslmode` in force.
    pub fn ssl_mode(&self) -> SslMode {
        self.mode
    }

    /// Open one connection; the caller polls (spawns) its second half.
    ///
    /// Errors: as [`PgTarget::describe`].
    pub async fn connect(&self) -> Result<(tokio_postgres::Client, PgConnection), AllotError> {
        self.config
            .connect(self.tls.clone())
            .await
            .map_err(|e| self.describe(&e))
    }

    /// `host:port` of every host the URL names, comma-separated (a Unix socket as its path).
    pub fn endpoint(&self) -> String {
        let ports = self.config.get_ports();
        let port_of = |i: usize| ports.get(i).or(ports.first()).copied().unwrap_or(5432);
        let hosts: Vec<String> = self
            .config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(i, h)| match h {
                tokio_postgres::config::Host::Tcp(name) => format!("{name}:{}", port_of(i)),
                tokio_postgres::config::Host::Unix(dir) => format!("{}/.s.PGSQL.{}", dir.display(), port_of(i)),
            })
            .collect();
        if hosts.is_empty() {
            format!("localhost:{}", port_of(0))
        } else {
            hosts.join(", ")
        }
    }

    /// A connection error as an `unavailable` error that says what happened and what to do:
    /// the database does not exist (and how to create it), authentication failed for the
    /// role, the host cannot be reached, TLS failed. Mapped by SQLSTATE and by the error's
    /// source types, never by message text. For start-up and the CLI: it names the host,
    /// role and database, so it is never an HTTP answer.
    pub fn describe(&self, e: &tokio_postgres::Error) -> AllotError {
        let at = self.endpoint();
        let user = self.config.get_user().unwrap_or("(the OS user)");
        let db = self.config.get_dbname().unwrap_or(user);
        let message = match e.code() {
            Some(c) if *c == SqlState::INVALID_CATALOG_NAME => format!(
                "database \"{db}\" does not exist on {at}: create it (`createdb -h HOST -p PORT -U {user} {db}`, \
                 or `CREATE DATABASE \"{db}\"` in psql) and start again; allot creates its tables itself"
            ),
            Some(c) if *c == SqlState::INVALID_PASSWORD || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION => {
                format!(
                    "authentication failed for role \"{user}\" on {at} (SQLSTATE {}): check the user and password \
                     in the database URL (--database-url / ALLOT_DATABASE_URL), that the role exists, and that \
                     the server's pg_hba.conf lets it in",
                    c.code()
                )
            }
            Some(c) if *c == SqlState::TOO_MANY_CONNECTIONS => format!(
                "PostgreSQL at {at} has no free connection slots (SQLSTATE 53300): lower --pool-size or raise \
                 the server's max_connections"
            ),
            Some(c) if *c == SqlState::CANNOT_CONNECT_NOW => {
                format!("PostgreSQL at {at} is starting up or shutting down (SQLSTATE 57P03): try again shortly")
            }
            Some(c) => format!("PostgreSQL at {at} refused the connection (SQLSTATE {})", c.code()),
            None => self.describe_transport(e),
        };
        AllotError::Unavailable(message)
    }

    fn describe_transport(&self, e: &tokio_postgres::Error) -> String {
        let at = self.endpoint();
        let mode = self.mode.name();
        let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
        while let Some(s) = source {
            let io = s.downcast_ref::<std::io::Error>();
            let tls = s.downcast_ref::<rustls::Error>().or_else(|| {
                io.and_then(|io| io.get_ref())
                    .and_then(|i| i.downcast_ref::<rustls::Error>())
            });
            if let Some(tls) = tls {
                return format!(
                    "TLS with PostgreSQL at {at} failed (sslmode={mode}): {tls}; check sslrootcert and the \
                     server's certificate, or choose another sslmode"
                );
            }
            if let Some(io) = io {
                return format!(
                    "cannot connect to PostgreSQL at {at}: {io}; is the server running there and accepting TCP \
                     connections (listen_addresses, port)?"
                );
            }
            source = s.source();
        }
        format!("cannot connect to PostgreSQL at {at} (sslmode={mode}): {e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_settings_leave_the_url() {
        let (rest, mode, root) = split_tls_settings(
            "postgres://u:p@h:5/db?sslmode=verify-full&application_name=a&sslrootcert=%2Ftmp%2Fca.pem",
        );
        assert_eq!(rest, "postgres://u:p@h:5/db?application_name=a");
        assert_eq!(mode.as_deref(), Some("verify-full"));
        assert_eq!(root.as_deref(), Some("/tmp/ca.pem"));
        let (rest, mode, root) = split_tls_settings("host=h user=u sslmode=verify-ca sslrootcert=/c.pem dbname=d");
        assert_eq!(
            (rest.as_str(), mode.as_deref(), root.as_deref()),
            ("host=h user=u dbname=d", Some("verify-ca"), Some("/c.pem"))
        );
        assert_eq!(split_tls_settings("postgres://h/db").0, "postgres://h/db");
        assert_eq!(
            split_tls_settings("postgres://h/db?sslmode=disable").0,
            "postgres://h/db"
        );
        let target = PgTarget::parse("postgres://u@h1:5433,h2/db").unwrap();
        assert_eq!(target.endpoint(), "h1:5433, h2:5432");
        assert_eq!(target.ssl_mode(), SslMode::Prefer);
    }

    #[test]
    fn sslmodes_follow_libpqs_rules() {
        use tokio_postgres::config::SslMode as Parsed;
        let system = Some(&RootCerts::System);
        let file = RootCerts::File("/ca.pem".into());
        assert_eq!(ssl_mode_of(None, None, Parsed::Prefer).unwrap(), SslMode::Prefer);
        assert_eq!(ssl_mode_of(None, None, Parsed::Require).unwrap(), SslMode::Require);
        assert_eq!(ssl_mode_of(None, system, Parsed::Prefer).unwrap(), SslMode::VerifyFull);
        assert_eq!(
            ssl_mode_of(Some("verify-ca"), Some(&file), Parsed::Prefer).unwrap(),
            SslMode::VerifyCa
        );
        assert!(
            ssl_mode_of(Some("verify-ca"), None, Parsed::Prefer).is_err(),
            "verify-ca without a root file"
        );
        for weaker in ["disable", "prefer", "require", "verify-ca"] {
            assert!(
                ssl_mode_of(Some(weaker), system, Parsed::Prefer).is_err(),
                "{weaker} with system roots"
            );
        }
        // A quoted key/value string keeps what tokio-postgres parsed.
        let t = PgTarget::parse("host=h user=u password='a b' sslmode=require").unwrap();
        assert_eq!(t.ssl_mode(), SslMode::Require);
        let t = PgTarget::parse("host=h user=u password='a b' sslmode=disable").unwrap();
        assert_eq!(t.ssl_mode(), SslMode::Disable);
    }

    fn shared(db: &str, user: &str) -> String {
        let base = std::env::var("ALLOT_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let target = PgTarget::parse(&base).unwrap();
        let host = match target.config().get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".into(),
        };
        let port = target.config().get_ports().first().copied().unwrap_or(5432);
        format!("postgres://{user}@{host}:{port}/{db}")
    }

    async fn error_of(url: &str) -> String {
        match PgTarget::parse(url).unwrap().connect().await {
            Ok(_) => panic!("{url} connected"),
            Err(e) => e.to_string(),
        }
    }

    /// Against the test PostgreSQL (`ALLOT_TEST_DATABASE_URL`): nothing is created.
    #[tokio::test]
    async fn connection_errors_say_what_to_do() {
        let missing = error_of(&shared("allot_no_such_database_4e1f", "postgres")).await;
        assert!(
            missing.contains("database \"allot_no_such_database_4e1f\" does not exist"),
            "{missing}"
        );
        assert!(missing.contains("createdb"), "{missing}");
        let role = error_of(&shared("postgres", "allot_no_such_role_4e1f")).await;
        assert!(
            role.contains("authentication failed for role \"allot_no_such_role_4e1f\""),
            "{role}"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let refused = error_of(&format!("postgres://postgres@127.0.0.1:{port}/postgres")).await;
        assert!(
            refused.contains(&format!("cannot connect to PostgreSQL at 127.0.0.1:{port}")),
            "{refused}"
        );
        assert!(!refused.contains("SQLSTATE"), "{refused}");
    }
}
