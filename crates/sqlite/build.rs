//! Rebuild when a migration is added or changed: `embed_migrations!` reads `migrations/` at
//! compile time, and a new file there is otherwise not seen by an incremental build.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
