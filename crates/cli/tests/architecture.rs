//! ARCHITECTURE.md stays a bird's-eye view that is true: at most 300 lines, and every file or
//! directory it names (in backticks or as a link) exists in the repository.

use std::path::{Path, PathBuf};

/// The longest ARCHITECTURE.md may grow, lines; detail belongs in docs/internals.md.
const MAX_LINES: usize = 300;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and directory of the repository, relative, with `/` separators (build output,
/// dependencies and VCS data left out).
fn tree(dir: &Path, rel: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("readable directory").flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if matches!(name.as_str(), "target" | ".git" | "node_modules" | "dist") {
            continue;
        }
        let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        out.push(path.clone());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            tree(&entry.path(), &path, out);
        }
    }
}

/// What looks like a path: a token with a `/`, or one ending in a source or doc extension
/// (build output under `target/` is made by a run, not kept).
fn looks_like_path(token: &str) -> bool {
    const EXTENSIONS: [&str; 8] = [".rs", ".md", ".toml", ".sql", ".json", ".js", ".css", ".html"];
    let plain = token
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    plain
        && !token.starts_with('/')
        && !token.starts_with("target/")
        && !token.contains("//")
        && (token.contains('/') || EXTENSIONS.iter().any(|e| token.ends_with(e)))
}

/// The paths the document names: code spans and link targets.
fn named_paths(text: &str) -> Vec<String> {
    let mut found: Vec<String> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|t| t.trim_end_matches('/').to_string())
        .collect();
    for link in text.split("](").skip(1) {
        let target = link.split([')', '#']).next().unwrap_or_default();
        if !target.contains(':') && !target.is_empty() {
            found.push(target.trim_end_matches('/').to_string());
        }
    }
    found.retain(|t| looks_like_path(t));
    found.sort();
    found.dedup();
    found
}

#[test]
fn architecture_md_is_short_and_names_only_what_exists() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines = text.lines().count();
    assert!(
        lines <= MAX_LINES,
        "ARCHITECTURE.md has {lines} lines, over {MAX_LINES}: move detail to docs/internals.md"
    );
    let mut files = Vec::new();
    tree(&root(), "", &mut files);
    let names = named_paths(&text);
    assert!(names.len() > 20, "only {} paths found: {names:?}", names.len());
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !files.iter().any(|f| f == *n || f.ends_with(&format!("/{n}"))))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what does not exist: {missing:?}"
    );
}

#[test]
fn paths_are_found_in_code_spans_and_links() {
    let text = "see `crates/core/src/lib.rs`, `allot serve`, `x.rs` and [api](docs/api.md#errors)";
    assert_eq!(named_paths(text), ["crates/core/src/lib.rs", "docs/api.md", "x.rs"]);
}
