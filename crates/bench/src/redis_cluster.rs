//! A 3-master Redis Cluster on loopback ports, started from Debian's `redis-server` and
//! `redis-cli` (`--cluster create`) for a test or a simulation target, and killed when
//! dropped: the fast path's keys spread over three nodes' slots, as in a deployment that
//! shards them.

use crate::cluster::uuid_like;
use crate::BenchError;
use std::process::Command;

/// Most polls of a node while it starts or the cluster forms (50 ms apart: 10 s).
const MAX_POLLS: u32 = 200;

/// A running 3-master cluster (no replicas, nothing saved to disk).
pub struct RedisCluster {
    ports: Vec<u16>,
    children: Vec<std::process::Child>,
    dir: std::path::PathBuf,
}

impl RedisCluster {
    /// Start three nodes on free ports (each with its cluster bus port, +10 000, free too),
    /// join them and wait until every node reports `cluster_state:ok`.
    pub fn start() -> Result<RedisCluster, BenchError> {
        let dir = std::env::temp_dir().join(format!("allot-redis-cluster-{}", uuid_like()));
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::Setup(e.to_string()))?;
        let mut cluster = RedisCluster {
            ports: Vec::new(),
            children: Vec::new(),
            dir,
        };
        let mut candidate = 20_000 + (std::process::id() % 3000) as u16 * 10;
        while cluster.ports.len() < 3 && candidate < 55_000 {
            candidate += 1;
            let free = |p: u16| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok();
            if free(candidate) && free(candidate + 10_000) {
                cluster.children.push(spawn_node(candidate, &cluster.dir)?);
                cluster.ports.push(candidate);
            }
        }
        for p in cluster.ports.clone() {
            cluster.wait_for(p, "PING", "PONG")?;
        }
        let out = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(cluster.nodes())
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .map_err(|e| BenchError::Setup(format!("redis-cli: {e}")))?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stdout).to_string();
            return Err(BenchError::Setup(format!("redis-cli --cluster create: {said}")));
        }
        for p in cluster.ports.clone() {
            cluster.wait_for(p, "CLUSTER INFO", "cluster_state:ok")?;
        }
        Ok(cluster)
    }

    fn nodes(&self) -> Vec<String> {
        self.ports.iter().map(|p| format!("127.0.0.1:{p}")).collect()
    }

    /// Poll `redis-cli -p port cmd` until its output contains `want` ([`MAX_POLLS`]).
    fn wait_for(&self, port: u16, cmd: &str, want: &str) -> Result<(), BenchError> {
        for _ in 0..MAX_POLLS {
            let out = Command::new("redis-cli")
                .args(["-p", &port.to_string()])
                .args(cmd.split(' '))
                .output();
            if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(want)) {
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Err(BenchError::Setup(format!(
            "redis on {port} never answered {cmd} with {want}"
        )))
    }

    /// The URL allot takes for it: `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,…`.
    pub fn url(&self) -> String {
        format!("redis+cluster://{}", self.nodes().join(","))
    }

    /// `FLUSHALL` on every master: an error unless each answers OK.
    pub fn flushall(&self) -> Result<(), BenchError> {
        for p in &self.ports {
            let out = Command::new("redis-cli")
                .args(["-p", &p.to_string(), "FLUSHALL"])
                .output()
                .map_err(|e| BenchError::Setup(format!("redis-cli: {e}")))?;
            let text = String::from_utf8_lossy(&out.stdout);
            if !(out.status.success() && text.trim() == "OK") {
                return Err(BenchError::Setup(format!("FLUSHALL on {p}: {text}")));
            }
        }
        Ok(())
    }
}

fn spawn_node(port: u16, dir: &std::path::Path) -> Result<std::process::Child, BenchError> {
    Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--cluster-enabled",
            "yes",
        ])
        .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| BenchError::Setup(format!("redis-server (Debian package redis-server): {e}")))
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
