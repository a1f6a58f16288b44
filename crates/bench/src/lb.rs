//! HAProxy in front of several allot instances (Debian's `haproxy`, run in the foreground as a
//! child process on a free loopback port, killed when dropped): round robin, health checks on
//! `/healthz` every 200 ms, an instance out after one failed check and back after one good one.

use crate::cluster::{free_port, uuid_like};
use crate::error::BenchError;
use std::path::PathBuf;

/// A running HAProxy.
pub struct Haproxy {
    child: std::process::Child,
    cfg: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl Haproxy {
    /// Start HAProxy balancing over allot instances on `backends` (ports on 127.0.0.1).
    pub fn start(backends: &[u16]) -> Result<Haproxy, BenchError> {
        let port = free_port()?;
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, p)| format!("  server a{i} 127.0.0.1:{p} check inter 200ms fall 1 rise 1\n"))
            .collect();
        let cfg_text = format!(
            "global\n  maxconn 4096\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  timeout server 60s\n\
             frontend fe\n  bind 127.0.0.1:{port}\n  default_backend be\n\
             backend be\n  balance roundrobin\n  option httpchk GET /healthz\n{servers}"
        );
        let cfg = std::env::temp_dir().join(format!("allot-chaos-haproxy-{}.cfg", uuid_like()));
        std::fs::write(&cfg, cfg_text).map_err(|e| BenchError::Setup(e.to_string()))?;
        let child = std::process::Command::new("haproxy")
            .arg("-f")
            .arg(&cfg)
            .arg("-db")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| BenchError::Setup(format!("haproxy (Debian's package): {e}")))?;
        Ok(Haproxy { child, cfg, port })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.cfg);
    }
}
