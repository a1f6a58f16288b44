//! A PostgreSQL cluster of the fault suite's own, on a free loopback port, made with Debian's
//! tools (`initdb`, `pg_ctl`; `pg_config --bindir` says where they are) and removed when
//! dropped. Never the shared server on 5432: other tests use it at the same time. As root
//! (CI), the tools run as the `postgres` user through `runuser`, since PostgreSQL refuses to
//! run as root.

use crate::error::BenchError;
use std::path::PathBuf;
use std::process::Command;

/// A cluster made for one scenario.
pub struct PgCluster {
    dir: PathBuf,
    bindir: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

/// How `pg_ctl` stops the server (PostgreSQL docs, "pg_ctl": `fast` rolls back and exits
/// cleanly; `immediate` aborts, and the next start runs crash recovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopMode {
    /// Clean shutdown.
    Fast,
    /// Abort: crash recovery at the next start.
    Immediate,
}

pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

/// Where `initdb` and `pg_ctl` are: `pg_config --bindir`, else the newest
/// `/usr/lib/postgresql/*/bin` (Debian's layout).
pub(crate) fn bindir() -> Result<PathBuf, BenchError> {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return Ok(dir);
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| BenchError::Setup(format!("no PostgreSQL binaries (initdb, pg_ctl): {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").exists())
        .collect();
    found.sort();
    found
        .pop()
        .ok_or_else(|| BenchError::Setup("no initdb under /usr/lib/postgresql".into()))
}

/// A free TCP port on 127.0.0.1 (bound and released; the cluster takes it right after).
pub fn free_port() -> Result<u16, BenchError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| BenchError::Setup(e.to_string()))?;
    Ok(l.local_addr().map_err(|e| BenchError::Setup(e.to_string()))?.port())
}

impl PgCluster {
    fn new_dir() -> Result<PgCluster, BenchError> {
        let dir = std::env::temp_dir().join(format!("allot-chaos-pg-{}", uuid_like()));
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::Setup(e.to_string()))?;
        if is_root() {
            run(Command::new("chown").arg("postgres:postgres").arg(&dir))?;
        }
        Ok(PgCluster {
            dir,
            bindir: bindir()?,
            port: free_port()?,
        })
    }

    /// `initdb` a new cluster in a temporary directory (trust on loopback, replication
    /// allowed, commits waiting for a synchronous standby when one is attached) and start it.
    pub fn start() -> Result<PgCluster, BenchError> {
        PgCluster::start_with("")
    }

    /// As [`PgCluster::start`], with `settings` (lines of `postgresql.conf`) added before
    /// the first start.
    pub fn start_with(settings: &str) -> Result<PgCluster, BenchError> {
        let cluster = PgCluster::new_dir()?;
        let data = cluster.data();
        cluster.tool("initdb", &["-D", &data, "-U", "postgres", "--auth=trust", "-E", "UTF8"])?;
        let conf = std::path::Path::new(&data).join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).map_err(|e| BenchError::Setup(e.to_string()))?;
        text.push('\n');
        text.push_str(settings);
        text.push('\n');
        std::fs::write(&conf, text).map_err(|e| BenchError::Setup(e.to_string()))?;
        cluster.start_server()?;
        Ok(cluster)
    }

    /// As [`PgCluster::start`], but speaking TLS with `cert_pem` and `key_pem` (the server's
    /// certificate chain and private key, PEM) and accepting TCP connections over TLS only
    /// (`hostssl … trust`, `hostnossl … reject`; PostgreSQL docs, "Secure TCP/IP
    /// Connections with SSL" and "The pg_hba.conf File").
    pub fn start_tls(cert_pem: &str, key_pem: &str) -> Result<PgCluster, BenchError> {
        let cluster = PgCluster::new_dir()?;
        let data = cluster.data();
        cluster.tool("initdb", &["-D", &data, "-U", "postgres", "--auth=trust", "-E", "UTF8"])?;
        let dir = std::path::Path::new(&data);
        let write =
            |name: &str, text: &str| std::fs::write(dir.join(name), text).map_err(|e| BenchError::Setup(e.to_string()));
        write("server.crt", cert_pem)?;
        write("server.key", key_pem)?;
        write(
            "pg_hba.conf",
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n\
             hostnossl all all 0.0.0.0/0 reject\nhostnossl all all ::/0 reject\n",
        )?;
        let conf = dir.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).map_err(|e| BenchError::Setup(e.to_string()))?;
        text.push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
        write("postgresql.conf", &text)?;
        let key = dir.join("server.key").display().to_string();
        run(Command::new("chmod").args(["600", &key]))?;
        if is_root() {
            run(Command::new("chown").args(["-R", "postgres:postgres", &data]))?;
        }
        cluster.start_server()?;
        Ok(cluster)
    }

    /// A streaming standby of `primary` (`pg_basebackup -R`), started, and made the
    /// primary's synchronous standby (`synchronous_standby_names = '*'`): once this returns,
    /// a commit on the primary is acknowledged only after the standby has it.
    pub fn standby_of(primary: &PgCluster) -> Result<PgCluster, BenchError> {
        let standby = PgCluster::new_dir()?;
        let port = primary.port.to_string();
        let data = standby.data();
        standby.tool(
            "pg_basebackup",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-D",
                &data,
                "-R",
                "-X",
                "stream",
            ],
        )?;
        standby.start_server()?;
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")?;
        primary.sql("SELECT pg_reload_conf()")?;
        for _ in 0..300 {
            if primary.sql_value("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")? == "1" {
                return Ok(standby);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Err(BenchError::Setup("the standby never became synchronous".into()))
    }

    /// SIGKILL the postmaster (a machine that dies: no shutdown at all).
    pub fn kill9(&self) -> Result<(), BenchError> {
        let pid_file = self.dir.join("data").join("postmaster.pid");
        let pid = std::fs::read_to_string(&pid_file).map_err(|e| BenchError::Setup(e.to_string()))?;
        let pid = pid.lines().next().unwrap_or("").trim().to_string();
        run(Command::new("kill").args(["-9", &pid]))
    }

    /// Promote a standby to primary (`pg_ctl promote`, waiting until it accepts writes).
    pub fn promote(&self) -> Result<(), BenchError> {
        self.tool("pg_ctl", &["-D", &self.data(), "-w", "-t", "60", "promote"])
    }

    fn sql(&self, statement: &str) -> Result<(), BenchError> {
        self.sql_value(statement).map(|_| ())
    }

    fn sql_value(&self, statement: &str) -> Result<String, BenchError> {
        let out = Command::new("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-Atc",
                statement,
            ])
            .output()
            .map_err(|e| BenchError::Setup(format!("psql: {e}")))?;
        if !out.status.success() {
            return Err(BenchError::Setup(format!(
                "psql: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn start_server(&self) -> Result<(), BenchError> {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            self.port,
            self.dir.display()
        );
        let (data, log) = (self.data(), self.dir.join("log").display().to_string());
        self.tool(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-o", &opts, "-w", "-t", "60", "start"],
        )
    }

    /// Stop the server with `mode` and start it again (what an operator's restart does).
    pub fn restart(&self, mode: StopMode) -> Result<(), BenchError> {
        let m = match mode {
            StopMode::Fast => "fast",
            StopMode::Immediate => "immediate",
        };
        self.tool("pg_ctl", &["-D", &self.data(), "-m", m, "-w", "-t", "60", "stop"])?;
        self.start_server()
    }

    fn tool(&self, name: &str, args: &[&str]) -> Result<(), BenchError> {
        let bin = self.bindir.join(name);
        let mut cmd = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&bin);
            c
        } else {
            Command::new(&bin)
        };
        run(cmd.args(args).current_dir(&self.dir))
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let _ = self.tool("pg_ctl", &["-D", &self.data(), "-m", "immediate", "-w", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn run(cmd: &mut Command) -> Result<(), BenchError> {
    let out = cmd.output().map_err(|e| BenchError::Setup(format!("{cmd:?}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(BenchError::Setup(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// A unique name part for a directory of the suite's own (a random UUID, 32 hex digits).
pub(crate) fn uuid_like() -> String {
    // A random UUID: the process id and the clock's nanoseconds were the same for two
    // pgbouncers that tests of one binary started at once, which then shared a directory
    // and a port, and neither listened.
    uuid::Uuid::new_v4().simple().to_string()
}

/// A Redis server of the suite's own on a free loopback port (`redis-server --port`, nothing
/// kept on disk), killed when dropped. Never the shared one on 6379.
pub struct RedisServer {
    child: std::process::Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

fn spawn_redis(port: u16) -> Result<std::process::Child, BenchError> {
    Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| BenchError::Setup(format!("redis-server: {e}")))
}

impl RedisServer {
    /// Start one and wait until it answers PING.
    pub fn start() -> Result<RedisServer, BenchError> {
        let port = free_port()?;
        let server = RedisServer {
            child: spawn_redis(port)?,
            port,
        };
        server.wait_ping()?;
        Ok(server)
    }

    fn wait_ping(&self) -> Result<(), BenchError> {
        for _ in 0..100 {
            if self.cli(&["PING"]).is_ok_and(|o| o == "PONG") {
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Err(BenchError::Setup("redis-server never answered".into()))
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// SIGKILL it and start a new, empty one on the same port (what a crash and a restart
    /// without persistence do: every key lost).
    pub fn crash_and_restart(&mut self) -> Result<(), BenchError> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_redis(self.port)?;
        self.wait_ping()
    }

    /// Run a redis-cli command; its output.
    pub fn cli(&self, args: &[&str]) -> Result<String, BenchError> {
        let out = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .output()
            .map_err(|e| BenchError::Setup(format!("redis-cli: {e}")))?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
