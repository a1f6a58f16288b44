//! The high-availability stack people deploy from Debian's packages, made by the suite on
//! free loopback ports and removed when dropped: one etcd (the DCS, v2 API), two PostgreSQL
//! nodes under Patroni in synchronous mode (a commit is acknowledged once the standby has
//! it), and HAProxy in TCP mode routing to whichever node answers Patroni's REST health check
//! `GET /primary` with 200 (Patroni docs, "HAProxy"). As root (CI), etcd and Patroni run as
//! `postgres` through `runuser`: PostgreSQL refuses to run as root.
//!
//! Its failover is Patroni's own: the leader's key in etcd expires `ttl` (10 s) after the
//! leader stops renewing it, and the synchronous standby, holding every acknowledged commit,
//! promotes itself.

use crate::cluster::{bindir, free_port, is_root, uuid_like};
use crate::error::BenchError;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the stack may take to come up (etcd, a bootstrapped leader, a synchronous
/// standby, HAProxy routing to the leader).
const START_WAIT: Duration = Duration::from_secs(90);

/// One Patroni node: its PostgreSQL and REST ports.
struct Node {
    name: String,
    pg_port: u16,
    rest_port: u16,
    child: Child,
}

/// A running etcd + Patroni + HAProxy stack.
pub struct PatroniStack {
    dir: PathBuf,
    etcd: Child,
    nodes: Vec<Node>,
    haproxy: Child,
    /// HAProxy's port on 127.0.0.1: the leader's PostgreSQL.
    pub port: u16,
}

fn setup(e: impl std::fmt::Display) -> BenchError {
    BenchError::Setup(format!("patroni stack: {e}"))
}

/// `program args` as `postgres` when running as root, in the directory of `log` (the stack's,
/// which `postgres` owns): a working directory it cannot enter — the test's crate directory
/// under a `/root` of mode 700 — makes Patroni's bootstrap fail after initdb.
fn as_postgres(program: &str, args: &[String], log: &std::path::Path) -> Result<Child, BenchError> {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", program]);
        c
    } else {
        Command::new(program)
    };
    let out = std::fs::File::create(log).map_err(setup)?;
    let err = out.try_clone().map_err(setup)?;
    if let Some(dir) = log.parent() {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| setup(format!("{program} (Debian's package): {e}")))
}

/// The status code of `GET path` on 127.0.0.1:`port` (HTTP/1.0), `None` without an answer.
fn http_status(port: u16, path: &str) -> Option<u16> {
    let mut s = std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(1)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// Whether a new connection to `url` reaches a primary (`psql`, bounded by its connect
/// timeout).
fn writable(url: &str) -> bool {
    Command::new("psql")
        .arg(format!("{url}?connect_timeout=2"))
        .args(["-Atc", "SELECT pg_is_in_recovery()"])
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"f"))
}

/// Wait until `ok()` holds, at most `within`; `what` names it in the error.
fn wait_for(what: &str, within: Duration, mut ok: impl FnMut() -> bool) -> Result<(), BenchError> {
    let started = Instant::now();
    while started.elapsed() < within {
        if ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(setup(format!("{what} within {within:?}")))
}

impl PatroniStack {
    /// Start etcd, the first node (it bootstraps and leads), the second (it follows and
    /// becomes the synchronous standby), then HAProxy; return once HAProxy reaches the leader.
    pub fn start() -> Result<PatroniStack, BenchError> {
        let dir = std::env::temp_dir().join(format!("allot-chaos-patroni-{}", uuid_like()));
        std::fs::create_dir_all(&dir).map_err(setup)?;
        if is_root() {
            let chown = Command::new("chown")
                .arg("postgres:postgres")
                .arg(&dir)
                .status()
                .map_err(setup)?;
            if !chown.success() {
                return Err(setup("chown of its directory failed"));
            }
        }
        let (client, peer) = (free_port()?, free_port()?);
        let etcd = start_etcd(&dir, client, peer)?;
        let mut stack = PatroniStack {
            dir,
            etcd,
            nodes: Vec::new(),
            haproxy: Command::new("true").spawn().map_err(setup)?,
            port: free_port()?,
        };
        wait_for("etcd answering", START_WAIT, || {
            http_status(client, "/version") == Some(200)
        })?;
        let scope = format!("allot-chaos-{}", uuid_like());
        for i in 1..=2 {
            let node = stack.start_node(&scope, i, client)?;
            stack.nodes.push(node);
            let (rest, role) = (stack.nodes[i - 1].rest_port, if i == 1 { "/primary" } else { "/sync" });
            wait_for(&format!("node {i} answering {role}"), START_WAIT, || {
                http_status(rest, role) == Some(200)
            })?;
        }
        stack.haproxy = stack.start_haproxy()?;
        // HAProxy counts a server up until its checks say otherwise: wait until it has
        // marked the standby down, seen as the leader answering through it several times in
        // a row over more than two check intervals.
        let url = stack.url();
        let mut in_a_row = 0;
        wait_for("HAProxy routing to the leader alone", START_WAIT, || {
            in_a_row = if writable(&url) { in_a_row + 1 } else { 0 };
            in_a_row >= 15
        })?;
        Ok(stack)
    }

    fn start_node(&self, scope: &str, i: usize, etcd_port: u16) -> Result<Node, BenchError> {
        let (name, pg_port, rest_port) = (format!("n{i}"), free_port()?, free_port()?);
        let dir = self.dir.display();
        let bin = bindir()?;
        let yml = format!(
            "scope: {scope}\nnamespace: /service/\nname: {name}\n\
             restapi:\n  listen: 127.0.0.1:{rest_port}\n  connect_address: 127.0.0.1:{rest_port}\n\
             etcd:\n  host: 127.0.0.1:{etcd_port}\n\
             bootstrap:\n  dcs:\n    ttl: 10\n    loop_wait: 1\n    retry_timeout: 4\n\
             \x20   maximum_lag_on_failover: 1048576\n    synchronous_mode: true\n\
             \x20   postgresql:\n      use_pg_rewind: false\n      parameters:\n        max_connections: 200\n\
             \x20 initdb:\n  - encoding: UTF8\n  - auth: trust\n\
             \x20 pg_hba:\n  - host all all 127.0.0.1/32 trust\n  - host replication all 127.0.0.1/32 trust\n\
             postgresql:\n  listen: 127.0.0.1:{pg_port}\n  connect_address: 127.0.0.1:{pg_port}\n\
             \x20 data_dir: {dir}/data{i}\n  bin_dir: {bin}\n  pgpass: {dir}/pgpass{i}\n\
             \x20 authentication:\n    replication:\n      username: postgres\n    superuser:\n      username: postgres\n\
             \x20 parameters:\n    unix_socket_directories: {dir}\n",
            bin = bin.display(),
        );
        let path = self.dir.join(format!("{name}.yml"));
        std::fs::write(&path, yml).map_err(setup)?;
        let args = [path.display().to_string()];
        let child = as_postgres("patroni", &args, &self.dir.join(format!("{name}.log")))?;
        Ok(Node {
            name,
            pg_port,
            rest_port,
            child,
        })
    }

    fn start_haproxy(&self) -> Result<Child, BenchError> {
        let servers: String = self
            .nodes
            .iter()
            .map(|n| {
                format!(
                    "  server {} 127.0.0.1:{} check port {}\n",
                    n.name, n.pg_port, n.rest_port
                )
            })
            .collect();
        let cfg = format!(
            "global\n  maxconn 4096\ndefaults\n  mode tcp\n  timeout connect 2s\n  timeout client 30m\n  timeout server 30m\n\
             listen postgres\n  bind 127.0.0.1:{port}\n  option httpchk GET /primary\n  http-check expect status 200\n\
             \x20 default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions\n{servers}",
            port = self.port
        );
        let path = self.dir.join("haproxy.cfg");
        std::fs::write(&path, cfg).map_err(setup)?;
        Command::new("haproxy")
            .arg("-f")
            .arg(&path)
            .arg("-db")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| setup(format!("haproxy (Debian's package): {e}")))
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`, through HAProxy.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The index of the node that answers `/primary` with 200, if one does.
    pub fn leader(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| http_status(n.rest_port, "/primary") == Some(200))
    }

    /// SIGKILL the leader's Patroni and its PostgreSQL (a machine that dies); which it was.
    pub fn kill_leader(&mut self) -> Result<usize, BenchError> {
        let i = self.leader().ok_or_else(|| setup("no leader to kill"))?;
        let pid_file = self.dir.join(format!("data{}", i + 1)).join("postmaster.pid");
        let pid = std::fs::read_to_string(&pid_file).map_err(setup)?;
        let pid = pid.lines().next().unwrap_or("").trim().to_string();
        let yml = self.dir.join(format!("{}.yml", self.nodes[i].name));
        // Patroni first (under runuser its pid is not the child's), then the postmaster.
        let _ = Command::new("pkill").arg("-9").arg("-f").arg(yml.as_os_str()).status();
        let _ = self.nodes[i].child.kill();
        let _ = Command::new("kill").args(["-9", &pid]).status();
        Ok(i)
    }

    /// Wait (at most `within`) until a node other than `killed` leads.
    pub fn wait_for_new_leader(&self, killed: usize, within: Duration) -> Result<(), BenchError> {
        wait_for("a new leader", within, || self.leader().is_some_and(|i| i != killed))
    }
}

fn start_etcd(dir: &std::path::Path, client: u16, peer: u16) -> Result<Child, BenchError> {
    let args: Vec<String> = [
        "--name".to_string(),
        "e1".into(),
        "--data-dir".into(),
        dir.join("etcd").display().to_string(),
        "--listen-client-urls".into(),
        format!("http://127.0.0.1:{client}"),
        "--advertise-client-urls".into(),
        format!("http://127.0.0.1:{client}"),
        "--listen-peer-urls".into(),
        format!("http://127.0.0.1:{peer}"),
        "--initial-advertise-peer-urls".into(),
        format!("http://127.0.0.1:{peer}"),
        "--initial-cluster".into(),
        format!("e1=http://127.0.0.1:{peer}"),
        "--enable-v2=true".into(),
    ]
    .into();
    as_postgres("etcd", &args, &dir.join("etcd.log"))
}

impl Drop for PatroniStack {
    fn drop(&mut self) {
        let _ = self.haproxy.kill();
        // Everything whose command line names the stack's directory: Patroni (its YAML),
        // PostgreSQL (its data directory), etcd (its data directory).
        let _ = Command::new("pkill")
            .arg("-9")
            .arg("-f")
            .arg(self.dir.as_os_str())
            .status();
        for n in &mut self.nodes {
            let _ = n.child.kill();
            let _ = n.child.wait();
        }
        let _ = self.etcd.kill();
        let _ = self.etcd.wait();
        let _ = self.haproxy.wait();
        std::thread::sleep(Duration::from_millis(200));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
