//! The console: `GET /` and `GET /console/{*file}` serve a browser UI embedded in the binary
//! (`crates/server/console/`, by `rust-embed`; plain HTML, CSS and JavaScript modules, no
//! build step). It is a client of the public API like any other: the operator enters a key,
//! and every action is an API call with that key's scopes and tenant. No route serves data to
//! the console alone.
//!
//! Every answer carries a strict Content-Security-Policy (scripts, styles and connections
//! from this origin only, no inline script or style, no framing, no forms posting elsewhere:
//! OWASP "Content Security Policy Cheat Sheet"), `nosniff`, and `no-referrer`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// The files under `crates/server/console/`, in the binary (also in debug builds).
#[derive(rust_embed::RustEmbed)]
#[folder = "console/"]
struct Assets;

/// The Content-Security-Policy of every console answer.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The console's routes (outside `/v1`: no key is needed to load the page itself).
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route("/", get(|| async { asset("index.html") })).route(
        "/console/{*file}",
        get(|axum::extract::Path(file): axum::extract::Path<String>| async move { asset(&file) }),
    )
}

/// One embedded file with its type and the console's headers, or a JSON `404`.
fn asset(path: &str) -> Response {
    let Some(file) = Assets::get(path) else {
        return crate::error::ApiError::from(allot_core::AllotError::not_found("console file", path.to_string()))
            .into_response();
    };
    let headers = [
        (header::CONTENT_TYPE, HeaderValue::from_static(content_type(path))),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        // Revalidate each load: a new binary serves new files at the same names.
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (StatusCode::OK, headers, file.data).into_response()
}

/// The media type of a console file, by its extension (the folder holds only these).
fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No file of the console may need what the policy forbids: inline scripts or handlers,
    /// `style=` attributes, `innerHTML` (values are always put in as text), or `eval`.
    #[test]
    fn the_files_keep_to_the_policy() {
        let mut seen = 0;
        for name in Assets::iter() {
            let text = String::from_utf8(Assets::get(&name).unwrap().data.into_owned()).unwrap();
            seen += 1;
            for banned in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "eval(",
                "new Function",
                "style=\"",
            ] {
                assert!(!text.contains(banned), "{name} uses {banned}");
            }
            if name.ends_with(".html") {
                assert!(!text.contains("<script>"), "{name}: an inline script");
                let handler = text.split(" on").skip(1).any(|rest| {
                    let word: String = rest.chars().take_while(char::is_ascii_lowercase).collect();
                    !word.is_empty() && rest[word.len()..].starts_with('=')
                });
                assert!(!handler, "{name}: an inline event handler");
            }
        }
        assert!(seen >= 9, "the console's files are embedded ({seen})");
    }

    #[test]
    fn types_by_extension() {
        assert_eq!(content_type("js/app.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("console.css"), "text/css; charset=utf-8");
    }
}
