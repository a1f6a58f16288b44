//! Puts the git commit the binary is built from into `ALLOT_GIT_COMMIT` for `allot
//! --version` ("unknown" outside a git checkout, e.g. a source tarball).

fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=ALLOT_GIT_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout); the paths are relative to crates/cli.
    for path in ["../../.git/HEAD", "../../.git/refs/heads", "../../.git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
