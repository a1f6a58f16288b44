//! PgBouncer in front of a PostgreSQL (Debian's `pgbouncer`, run in the foreground as a child
//! process on a free loopback port with an ini of its own, killed when dropped), in either
//! pooling mode: for the tests and chaos scenarios that put allot where users deploy it.
//! As root (CI) it runs as `postgres` (`-u postgres`): PgBouncer refuses to run as root.

use crate::cluster::{free_port, is_root, uuid_like};
use crate::error::BenchError;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long [`PgBouncer::start`] waits for the port to accept connections.
const START_WAIT: Duration = Duration::from_secs(10);

/// PgBouncer's `pool_mode` (PgBouncer docs, "pool_mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolMode {
    /// A server connection per client connection, for the client's whole session.
    Session,
    /// A server connection per transaction (and per statement outside one).
    Transaction,
}

impl PoolMode {
    /// The ini's word for it.
    pub fn name(self) -> &'static str {
        match self {
            PoolMode::Session => "session",
            PoolMode::Transaction => "transaction",
        }
    }
}

/// A running PgBouncer.
pub struct PgBouncer {
    child: std::process::Child,
    dir: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl PgBouncer {
    /// Start PgBouncer in `mode` on a free port, passing every database to
    /// `upstream_host:upstream_port` under the same name (`* =`), with at most `pool_size`
    /// server connections per database and user, and trust for the user `postgres`.
    ///
    /// Errors: `Setup` when `pgbouncer` is missing or its port never opens.
    pub fn start(
        mode: PoolMode,
        (upstream_host, upstream_port): (&str, u16),
        pool_size: usize,
    ) -> Result<PgBouncer, BenchError> {
        let setup = |e: std::io::Error| BenchError::Setup(format!("pgbouncer: {e}"));
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("allot-pgbouncer-{}", uuid_like()));
        std::fs::create_dir_all(&dir).map_err(setup)?;
        std::fs::write(dir.join("users.txt"), "\"postgres\" \"\"\n").map_err(setup)?;
        let ini = format!(
            "[databases]\n* = host={upstream_host} port={upstream_port}\n\
             [pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = trust\nauth_file = {users}\npool_mode = {mode}\n\
             max_client_conn = 4000\ndefault_pool_size = {pool_size}\n\
             ignore_startup_parameters = extra_float_digits\n\
             logfile = {log}\npidfile = {pid}\n",
            users = dir.join("users.txt").display(),
            mode = mode.name(),
            log = dir.join("pgbouncer.log").display(),
            pid = dir.join("pgbouncer.pid").display(),
        );
        std::fs::write(dir.join("pgbouncer.ini"), ini).map_err(setup)?;
        let mut cmd = std::process::Command::new("pgbouncer");
        if is_root() {
            let chown = std::process::Command::new("chown")
                .arg("-R")
                .arg("postgres:postgres")
                .arg(&dir)
                .status()
                .map_err(setup)?;
            if !chown.success() {
                return Err(BenchError::Setup("pgbouncer: chown of its directory failed".into()));
            }
            cmd.args(["-u", "postgres"]);
        }
        let child = cmd
            .arg(dir.join("pgbouncer.ini"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| BenchError::Setup(format!("pgbouncer (Debian's package): {e}")))?;
        let bouncer = PgBouncer { child, dir, port };
        bouncer.wait_for_port()?;
        Ok(bouncer)
    }

    fn wait_for_port(&self) -> Result<(), BenchError> {
        let started = Instant::now();
        while started.elapsed() < START_WAIT {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err(BenchError::Setup(format!(
            "pgbouncer did not open 127.0.0.1:{} within {START_WAIT:?}; its log: {}",
            self.port,
            std::fs::read_to_string(self.dir.join("pgbouncer.log")).unwrap_or_default()
        )))
    }

    /// The host and port a PostgreSQL URL names (its first host; `127.0.0.1:5432` by
    /// default): what a test's PgBouncer passes its connections to.
    pub fn upstream_of(url: &str) -> (String, u16) {
        use std::str::FromStr;
        let config = tokio_postgres::Config::from_str(url).ok();
        let host = match config.as_ref().and_then(|c| c.get_hosts().first().cloned()) {
            Some(tokio_postgres::config::Host::Tcp(h)) => h,
            _ => "127.0.0.1".to_string(),
        };
        let port = config.and_then(|c| c.get_ports().first().copied()).unwrap_or(5432);
        (host, port)
    }

    /// `postgres://postgres@127.0.0.1:PORT/database`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
